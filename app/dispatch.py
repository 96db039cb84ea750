"""Hand a persisted task to a worker: rq on Redis, or the embedded runtime's submit callable.

The job is named by string so the API process never imports workers/: JOB_FUNC runs a task,
EXPLORE_JOB_FUNC a site exploration (the same queue, the same workers); the id is the row's.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import Protocol

import redis
from rq import Queue

from app.contracts import JOB_FUNC, QUEUE_NAME

# rq kills a job at job_timeout; the worker enforces timeout_s itself and needs time after
# it to mark the task timed_out and emit task.finished before rq's hard kill.
JOB_TIMEOUT_GRACE_S = 60
RESULT_TTL_S = 60
FAILURE_TTL_S = 24 * 3600


class Dispatcher(Protocol):
    async def enqueue(self, task_id: str, *, timeout_s: float, job: str = JOB_FUNC) -> None:
        """Queue an already-committed task (or, with `job`, another job's row) to run."""

    async def queue_depth(self) -> int:
        """Tasks waiting for a worker (for metrics and autoscaling)."""


class DispatchError(RuntimeError):
    """The queue backend refused or could not be reached; the task row stays queued."""


class RqDispatcher:
    """Enqueues `workers.jobs.run_task(task_id)` (or `job`) on the rq queue, job id = row id."""

    def __init__(
        self,
        redis_url: str,
        *,
        queue_name: str = QUEUE_NAME,
        job_func: str = JOB_FUNC,
        grace_s: int = JOB_TIMEOUT_GRACE_S,
    ) -> None:
        self._connection = redis.Redis.from_url(redis_url)
        self.queue = Queue(queue_name, connection=self._connection)
        self._job_func = job_func
        self._grace_s = grace_s

    def enqueue_sync(self, task_id: str, *, timeout_s: float, job: str | None = None) -> None:
        """Blocking enqueue (rq's client is synchronous)."""
        try:
            self.queue.enqueue_call(
                job or self._job_func,
                args=(task_id,),
                job_id=task_id,
                timeout=math.ceil(timeout_s) + self._grace_s,
                result_ttl=RESULT_TTL_S,
                failure_ttl=FAILURE_TTL_S,
                description=f"webagent task {task_id}",
            )
        except redis.RedisError as exc:
            raise DispatchError(f"could not enqueue task {task_id}: {exc}") from exc

    async def enqueue(self, task_id: str, *, timeout_s: float, job: str = JOB_FUNC) -> None:
        job_func = self._job_func if job == JOB_FUNC else job
        await asyncio.to_thread(self.enqueue_sync, task_id, timeout_s=timeout_s, job=job_func)

    def queue_depth_sync(self) -> int:
        return len(self.queue)

    async def queue_depth(self) -> int:
        return await asyncio.to_thread(self.queue_depth_sync)

    def close(self) -> None:
        self._connection.close()


class InProcessDispatcher:
    """Embedded deployment: the composition root injects the runtime's submit and depth."""

    def __init__(self, submit: Callable[[str, str], None], depth: Callable[[], int]) -> None:
        self._submit = submit
        self._depth = depth

    async def enqueue(self, task_id: str, *, timeout_s: float, job: str = JOB_FUNC) -> None:
        # the runtime enforces timeout_s from the row; submit only hands over the id and job
        self._submit(task_id, job)

    async def queue_depth(self) -> int:
        return self._depth()
