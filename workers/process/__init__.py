"""The worker process runtime: one event-loop thread with warm Chromium (runtime), the rq
supervisor and the embedded pool, write-behind, outage retries, cancellation.
Imports adapters and llm."""
