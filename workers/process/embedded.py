"""The embedded deployment: the same run_task and runtime, inside `webagent serve`.

Without Redis there is no rq; a thread pool of `concurrency` threads calls the same sync
`run_task` the rq worker calls, each running its coroutine on one shared WorkerRuntime
(one warm Chromium, one isolated context per running task).
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import threading
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from typing import Any

import redis
from fastapi import FastAPI
from rq import Queue
from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from app import llm_probe
from app.api.health import rq_workers_check
from app.contracts import EXPLORE_JOB_FUNC, JOB_FUNC, ErrorCode, TaskStatus
from app.db import SiteExploration, Task
from app.dispatch import InProcessDispatcher
from app.events import EventBus, MemoryEventBus
from app.main import LifespanExtra, create_app
from app.reaper import fail_worker_tasks
from app.settings import Settings
from workers.process import runtime
from workers.process.housekeeping import run_housekeeping
from workers.process.runtime import LLMFactory, WorkerRuntime, default_llm, make_worker_id

log = logging.getLogger(__name__)

STOP_GRACE_S = 2.0  # a running task may finish within this when the service stops
UNWIND_S = 5.0  # then its cancelled coroutine cleans up, and its row is marked
INTERRUPTED = "the service was stopped while the task ran (interrupted)"


class EmbeddedWorkers:
    """submit(task_id[, job]) → run_task (or the named job) on a pool thread; depth() =
    submitted but not started."""

    def __init__(
        self,
        settings: Settings,
        bus: EventBus,
        concurrency: int,
        *,
        llm_factory: LLMFactory = default_llm,
    ) -> None:
        self.settings = settings
        self.concurrency = max(1, concurrency)
        self.runtime = WorkerRuntime(
            settings, bus, worker_id=make_worker_id("embedded"), llm_factory=llm_factory
        )
        self._executor: ThreadPoolExecutor | None = None
        self._lock = threading.Lock()
        self._waiting = 0
        self._futures: set[Future[None]] = set()

    def start(self) -> None:
        """Launch the warm browser and install the runtime for run_task (blocking)."""
        self.runtime.start()
        runtime.install(self.runtime)
        _job()  # the job code loads now, not inside the first task
        _job(EXPLORE_JOB_FUNC)
        self._executor = ThreadPoolExecutor(self.concurrency, thread_name_prefix="webagent-job")

    def stop(self, grace_s: float = STOP_GRACE_S) -> None:
        """Drop queued work, give running tasks `grace_s`, interrupt the rest, then close
        the runtime (Ctrl-C on `webagent serve` stops within seconds).

        A task still running after the grace has its coroutine cancelled and ends `failed` /
        `interrupted`, announced with task.finished, instead of staying `running` for the
        reaper to call `worker_lost` at the next start (issue 23 §6).
        """
        executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
            with self._lock:
                running = list(self._futures)
            _, left = wait(running, timeout=grace_s)
            if left and self.runtime.interrupt():
                wait(left, timeout=UNWIND_S)  # finally blocks: browser context, memory writes
                self._mark_interrupted()
        runtime.install(None)
        self.runtime.stop()

    def _mark_interrupted(self) -> None:
        """Fail this worker's live tasks `interrupted` (the reaper's way, announced)."""
        rt = self.runtime
        try:
            failed = rt.run(
                lambda: fail_worker_tasks(
                    rt.sessions,
                    worker_ids=[rt.worker_id],
                    error=ErrorCode.interrupted,
                    detail=INTERRUPTED,
                    bus=rt.bus,
                ),
                UNWIND_S,
            )
        except (TimeoutError, SQLAlchemyError, OSError) as exc:
            log.warning("could not mark the interrupted tasks: %r (the reaper will)", exc)
            return
        if failed:
            log.info("interrupted %d running task(s): %s", len(failed), ", ".join(failed))

    @property
    def ready(self) -> bool:
        return self._executor is not None and self.runtime.started

    def submit(self, task_id: str, job: str = JOB_FUNC) -> None:
        if self._executor is None:
            raise RuntimeError("EmbeddedWorkers is not running")
        with self._lock:
            self._waiting += 1
        future = self._executor.submit(self._run, task_id, job)
        with self._lock:
            self._futures.add(future)
        future.add_done_callback(self._forget)

    def depth(self) -> int:
        with self._lock:
            return self._waiting

    def _forget(self, future: Future[None]) -> None:
        with self._lock:
            self._futures.discard(future)
            if future.cancelled():
                self._waiting -= 1

    def _run(self, task_id: str, job: str = JOB_FUNC) -> None:
        with self._lock:
            self._waiting -= 1
        try:
            _job(job)(task_id)
        except Exception:  # a pool thread must survive any job failure (the job boundary)
            log.exception("embedded job for task %s failed", task_id)


def _job(func: str = JOB_FUNC) -> Callable[[str], None]:
    """The job function the queue names (JOB_FUNC, EXPLORE_JOB_FUNC), found as rq finds it:
    both deployments run the same functions, and the process runtime imports no job code."""
    module, name = func.rsplit(".", 1)
    job: Callable[[str], None] = getattr(importlib.import_module(module), name)
    return job


async def resubmit_queued(sessions: Any, submit: Callable[[str, str], None]) -> int:
    """The in-process queue dies with the process: hand over tasks (and site explorations)
    still queued in the DB."""
    async with sessions() as s:
        stmt = select(Task.id).where(Task.status == TaskStatus.queued.value)
        ids = list((await s.execute(stmt.order_by(Task.created_at))).scalars())
        queued = SiteExploration.status == TaskStatus.queued.value
        explore = select(SiteExploration.id).where(queued).order_by(SiteExploration.created_at)
        explorations = list((await s.execute(explore)).scalars())
    for task_id in ids:
        submit(task_id, JOB_FUNC)
    for exploration_id in explorations:
        submit(exploration_id, EXPLORE_JOB_FUNC)
    return len(ids) + len(explorations)


def reaper_lifespan(settings: Settings) -> LifespanExtra:
    """Run the reaper, the retention pruner and the scratch sweep for as long as the API
    lives (workers/process/housekeeping.py)."""

    @contextlib.asynccontextmanager
    async def extra(app: FastAPI) -> AsyncIterator[None]:
        reaper = asyncio.create_task(
            run_housekeeping(app.state.session_factory, settings, app.state.bus),
            name="webagent-reaper",
        )
        try:
            yield
        finally:
            reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reaper

    return extra


def production_lifespan(settings: Settings) -> LifespanExtra:
    """API-only process: the reaper, and readiness 'browser' = a live rq worker on the queue."""
    reaper = reaper_lifespan(settings)

    @contextlib.asynccontextmanager
    async def extra(app: FastAPI) -> AsyncIterator[None]:
        connection = redis.Redis.from_url(settings.redis_url)
        app.state.readiness_checks["browser"] = rq_workers_check(
            Queue(settings.queue_name, connection=connection)
        )
        llm_probe.install(app, settings)  # readiness "llm", and a start-up log line
        try:
            async with reaper(app):
                yield
        finally:
            connection.close()

    return extra


def embedded_lifespan(settings: Settings, workers: EmbeddedWorkers) -> LifespanExtra:
    """Start the in-process workers (warm browser first), the reaper, and a browser probe."""
    reaper = reaper_lifespan(settings)

    @contextlib.asynccontextmanager
    async def extra(app: FastAPI) -> AsyncIterator[None]:
        await asyncio.to_thread(workers.start)

        async def browser() -> bool:
            return workers.ready and workers.runtime.pool.ready

        app.state.readiness_checks["browser"] = browser
        llm_probe.install(app, settings)  # readiness "llm", and a start-up log line
        try:
            async with reaper(app):
                queued = await resubmit_queued(app.state.session_factory, workers.submit)
                if queued:
                    log.info("resubmitted %d queued task(s) from a previous run", queued)
                yield
        finally:
            await asyncio.to_thread(workers.stop)

    return extra


def build_app(settings: Settings, *, llm_factory: LLMFactory = default_llm) -> FastAPI:
    """The service: embedded (workers in-process) without Redis, else API + reaper only."""
    if not settings.embedded:
        return create_app(settings, lifespan_extra=production_lifespan(settings))
    bus = MemoryEventBus()
    workers = EmbeddedWorkers(settings, bus, settings.browser_pool_size, llm_factory=llm_factory)
    dispatcher = InProcessDispatcher(workers.submit, workers.depth)
    return create_app(
        settings,
        dispatcher=dispatcher,
        bus=bus,
        lifespan_extra=embedded_lifespan(settings, workers),
    )
