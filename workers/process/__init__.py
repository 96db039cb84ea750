"""The worker process: runtime (one event-loop thread, warm Chromium, clients), the rq supervisor,
the embedded pool, cancellation, worker ids. Runs workers.jobs by the queue's name (JOB_FUNC).
"""
