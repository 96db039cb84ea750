"""`webagent worker --concurrency N`: N worker processes, restarted on crash, stopped cleanly.

Each process keeps one warm Chromium between jobs, so jobs run inside the worker process
(rq's SimpleWorker: no fork per job). rq's own `worker-pool` cannot give each process its
index (needed for its metrics port) nor build our runtime before the work loop, so this
small supervisor does only that: spawn, watch, restart with backoff, forward SIGTERM.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import logging
import multiprocessing
import signal
import threading
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Any

import redis
from prometheus_client import start_http_server
from redis.exceptions import RedisError
from rq import Queue, SimpleWorker, worker_registration
from rq.job import Job
from rq.registry import StartedJobRegistry
from sqlalchemy.exc import SQLAlchemyError

from app.contracts import ErrorCode
from app.db import create_engine, session_factory
from app.events import RedisEventBus
from app.logging_config import configure as configure_logging
from app.reaper import fail_worker_tasks
from app.settings import Settings
from workers.process.housekeeping import run_housekeeping
from workers.process.worker_id import make_worker_id

if TYPE_CHECKING:
    from workers.process.runtime import WorkerRuntime

log = logging.getLogger(__name__)

MAX_BACKOFF_S = 30.0
STANDBY_NAME, WORKER_NAME = "wa-standby", "wa-worker"
STANDBY_DELAY_S = 10.0  # a new standby waits this long (not competing with a start)
FAIL_TASKS_TIMEOUT_S = 10.0  # a database outage leaves the tasks to the reaper
HEALTHY_AFTER_S = 60.0
# rq heartbeats an idle worker every WORKER_TTL_S - 15 s: a registration lost with a Redis
# restart is renewed within ~25 s (rq's default, 420 s, kept /readyz 503 for 6 minutes)
WORKER_TTL_S = 40  # a child that lived this long resets its crash backoff


def worker_process_main(index: int, settings: Settings, worker_id: str | None = None) -> None:
    """One worker process: metrics endpoint, warm runtime, rq work loop on the configured queue."""
    configure_logging(settings)  # JSON lines with task id and step (app/logging_config.py)
    start_http_server(settings.worker_metrics_port + index, addr=settings.host)
    rt = _warm_runtime(settings, worker_id or make_worker_id(f"w{index}"))
    _work(rt, settings)


def _warm_runtime(settings: Settings, worker_id: str) -> WorkerRuntime:
    """A started runtime; the job code (the agent stack) is imported while Chromium launches,
    not when the first job arrives."""
    from workers.process.runtime import WorkerRuntime

    preload = threading.Thread(
        target=importlib.import_module, args=("workers.jobs",), name="preload-jobs", daemon=True
    )
    preload.start()
    bus = RedisEventBus(settings.redis_url, settings.event_stream_maxlen)
    rt = WorkerRuntime(settings, bus, worker_id=worker_id)
    rt.start()
    preload.join()
    return rt


def _work(rt: WorkerRuntime, settings: Settings) -> None:
    """The rq work loop on a started runtime, until rq's warm shutdown (SIGTERM)."""
    from workers.process import runtime

    runtime.install(rt)
    connection = redis.Redis.from_url(settings.redis_url)
    try:
        queue = Queue(settings.queue_name, connection=connection)
        worker = RenewingWorker(
            [queue], connection=connection, name=rt.worker_id, worker_ttl=WORKER_TTL_S
        )
        worker.work(with_scheduler=False, logging_level="INFO")
    finally:
        runtime.install(None)
        rt.stop()
        connection.close()


def standby_main(settings: Settings, conn: Connection) -> None:
    """A spare worker process, fully warm (imports, Chromium, tokenizer) but off the queue.

    A respawned worker spent over 20 s in imports on a loaded 2-core VM before its first
    task; the promoted standby only registers with rq. It costs one idle Chromium.
    """
    configure_logging(settings)
    _name_process(STANDBY_NAME)  # `ps` tells the idle standby from the workers
    rt = _warm_runtime(settings, make_worker_id("standby"))
    try:
        index, worker_id = conn.recv()
    except (EOFError, OSError):  # the supervisor went away or stopped the standby
        rt.stop()
        return
    finally:
        conn.close()
    rt.worker_id = worker_id  # the slot's id: the supervisor fails its tasks if it dies
    _name_process(WORKER_NAME)
    start_http_server(settings.worker_metrics_port + index, addr=settings.host)
    _work(rt, settings)


def _name_process(name: str) -> None:
    """Set the process name `ps` and psutil show (Linux; elsewhere nothing happens)."""
    with contextlib.suppress(OSError):
        Path("/proc/self/comm").write_text(name[:15])


class RenewingWorker(SimpleWorker):
    """rq's SimpleWorker that registers itself again when Redis lost its registration.

    After a Redis restart without persistence rq kept heartbeating an unregistered worker,
    so /readyz ('browser': a live worker on the queue) stayed 503 while it processed jobs.
    """

    def heartbeat(self, timeout: int | None = None, pipeline: Any = None) -> None:
        super().heartbeat(timeout, pipeline)
        if pipeline is None:
            self.renew_registration()

    def renew_registration(self) -> bool:
        """Re-register if Redis no longer lists this worker on its queues; True if it did."""
        registered = all(
            self.connection.sismember(worker_registration.WORKERS_BY_QUEUE_KEY % q.name, self.key)
            for q in self.queues
        )
        if registered and self.connection.hexists(self.key, "birth"):
            return False
        log.warning("worker %s: registration lost (Redis restarted?); renewing it", self.name)
        with self.connection.pipeline() as pipe:
            pipe.hset(self.key, mapping=self.serialize())
            worker_registration.register(self, pipe)
            pipe.expire(self.key, self.worker_ttl + 60)
            pipe.execute()
        return True


@dataclass
class _Slot:
    index: int
    process: BaseProcess | None = None
    worker_id: str = ""  # given by the supervisor, so it can fail the tasks of a killed worker
    started_at: float = 0.0
    failures: int = 0
    restart_at: float = 0.0


class ReaperThread:
    """The reaper, retention pruner and scratch sweep (workers/process/housekeeping.py) on
    their own thread and loop (the supervisor itself is sync)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[None] | None = None
        self._thread = threading.Thread(target=self._main, name="webagent-reaper", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        loop, task = self._loop, self._task
        if loop is not None and task is not None:
            loop.call_soon_threadsafe(task.cancel)
        self._thread.join(timeout)

    def _main(self) -> None:
        asyncio.run(self._run())

    async def _run(self) -> None:
        engine = create_engine(self.settings.effective_database_url)
        bus = RedisEventBus(self.settings.redis_url, self.settings.event_stream_maxlen)
        self._loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()  # type: ignore[assignment]
        try:
            await run_housekeeping(session_factory(engine), self.settings, bus)
        except asyncio.CancelledError:
            pass
        finally:
            await bus.aclose()
            await engine.dispose()


class Supervisor:
    """Keeps `concurrency` worker processes alive until SIGTERM/SIGINT."""

    def __init__(
        self, settings: Settings, concurrency: int, *, grace_s: float = 60.0, reaper: bool = True
    ) -> None:
        self.settings = settings
        self.slots = [_Slot(index=i) for i in range(concurrency)]
        self.grace_s = grace_s
        self._ctx = multiprocessing.get_context("spawn")  # no forked Playwright/asyncio state
        self._stop = threading.Event()
        self._reaper = ReaperThread(settings) if reaper else None
        self._standby: tuple[BaseProcess, Connection] | None = None
        self._standby_at = 0.0  # when to prepare the next standby

    def request_stop(self, signum: int = signal.SIGTERM, frame: FrameType | None = None) -> None:
        log.info("supervisor: stop requested (signal %d)", signum)
        self._stop.set()

    def run(self) -> int:
        """Block until stopped; returns the process exit code."""
        signal.signal(signal.SIGTERM, self.request_stop)
        signal.signal(signal.SIGINT, self.request_stop)
        if self._reaper is not None:
            self._reaper.start()
        for slot in self.slots:
            self._spawn(slot)
        self._standby_at = time.monotonic() + STANDBY_DELAY_S  # after the workers' start
        while not self._stop.wait(0.5):
            self._watch()
            self._keep_standby()
        self._stop_standby()
        self._shutdown()
        if self._reaper is not None:
            self._reaper.stop()
        return 0

    def _spawn(self, slot: _Slot) -> None:
        slot.worker_id = make_worker_id(f"w{slot.index}")
        process = self._promote(slot)
        if process is None:
            process = self._ctx.Process(
                target=worker_process_main,
                args=(slot.index, self.settings, slot.worker_id),
                name=f"webagent-worker-{slot.index}",
            )
            process.start()
        slot.process, slot.started_at = process, time.monotonic()
        log.info("supervisor: worker %d started (pid %s)", slot.index, process.pid)

    def _promote(self, slot: _Slot) -> BaseProcess | None:
        """Hand the slot to the standby process, if one is alive; None otherwise."""
        standby, self._standby = self._standby, None
        if standby is None:
            return None
        process, conn = standby
        self._standby_at = time.monotonic() + STANDBY_DELAY_S
        try:
            if not process.is_alive():
                raise BrokenPipeError("standby exited")
            conn.send((slot.index, slot.worker_id))
        except OSError:
            process.kill()
            return None
        finally:
            conn.close()
        log.info("supervisor: standby pid %s promoted to worker %d", process.pid, slot.index)
        return process

    def _keep_standby(self) -> None:
        if not self.settings.worker_standby or time.monotonic() < self._standby_at:
            return
        if self._standby is not None and self._standby[0].is_alive():
            return
        if self._standby is not None:  # it died idle: try again later
            self._standby[1].close()
            self._standby, self._standby_at = None, time.monotonic() + STANDBY_DELAY_S
            return
        ours, theirs = self._ctx.Pipe()
        process = self._ctx.Process(
            target=standby_main, args=(self.settings, theirs), name="webagent-worker-standby"
        )
        process.start()
        theirs.close()
        self._standby = (process, ours)

    def _stop_standby(self) -> None:
        """An idle standby holds no task: one still warming up (it only reads the pipe once
        its Chromium is up, seconds later) is terminated rather than waited for."""
        standby, self._standby = self._standby, None
        if standby is not None:
            process, conn = standby
            conn.close()  # a warm standby's recv() ends: it exits without becoming a worker
            process.join(0.5)
            if process.is_alive():
                process.terminate()  # its Chromium goes with its pipe (--remote-debugging-pipe)
                process.join(5)
            if process.is_alive():
                process.kill()

    def _watch(self) -> None:
        """Restart dead workers, backing off exponentially while they keep crashing."""
        now = time.monotonic()
        for slot in self.slots:
            process = slot.process
            if process is not None and process.is_alive():
                continue
            if process is not None:
                lived = now - slot.started_at
                slot.failures = 0 if lived >= HEALTHY_AFTER_S else slot.failures + 1
                delay = min(MAX_BACKOFF_S, 2.0 ** (slot.failures - 1)) if slot.failures else 0.0
                log.warning(
                    "supervisor: worker %d exited with %s; restarting in %.0fs",
                    slot.index,
                    process.exitcode,
                    delay,
                )
                code = process.exitcode
                process.close()
                slot.process, slot.restart_at = None, now + delay
                # its task cannot finish: fail it now instead of after the heartbeat timeout
                self._fail_tasks(
                    [slot.worker_id],
                    ErrorCode.worker_lost,
                    f"the worker process exited with code {code} mid-task",
                )
            if now >= slot.restart_at:
                self._spawn(slot)

    def _shutdown(self) -> None:
        """Warm stop (rq finishes the current job), then kill whatever outlives the grace."""
        alive = [s for s in self.slots if s.process is not None and s.process.is_alive()]
        for slot in alive:
            assert slot.process is not None
            slot.process.terminate()  # SIGTERM → rq warm shutdown
        deadline = time.monotonic() + self.grace_s
        for slot in alive:
            assert slot.process is not None
            slot.process.join(max(0.0, deadline - time.monotonic()))
        killed: list[str] = []
        for slot in alive:
            process = slot.process
            assert process is not None
            if process.is_alive():
                log.warning("supervisor: worker pid %s outlived the grace; killing", process.pid)
                process.kill()
                process.join(5)
                killed.append(slot.worker_id)
        if killed:
            detail = "the worker was stopped before the task finished (shutdown grace)"
            self._fail_tasks(killed, ErrorCode.interrupted, detail)
        log.info("supervisor: all workers stopped")

    def _fail_tasks(self, worker_ids: list[str], error: ErrorCode, detail: str) -> None:
        """Fail the live tasks of workers known to be gone (killed, crashed), announced."""

        async def fail() -> list[str]:
            engine = create_engine(self.settings.effective_database_url)
            bus = RedisEventBus(self.settings.redis_url, self.settings.event_stream_maxlen)
            try:
                async with asyncio.timeout(FAIL_TASKS_TIMEOUT_S):
                    return await fail_worker_tasks(
                        session_factory(engine),
                        worker_ids=worker_ids,
                        error=error,
                        detail=detail,
                        bus=bus,
                    )
            finally:
                await bus.aclose()
                await engine.dispose()

        try:
            tasks = asyncio.run(fail())
        except (SQLAlchemyError, RedisError, OSError, TimeoutError) as exc:
            log.warning("supervisor: could not fail the tasks (reaper will): %r", exc)
            return
        if tasks:
            log.warning("supervisor: %d task(s) %s: %s", len(tasks), error.value, ", ".join(tasks))
            self._forget_jobs(tasks)

    def _forget_jobs(self, task_ids: list[str]) -> None:
        """A dead worker's jobs leave rq's in-progress registry (`rq:wip:<queue>`) now: rq
        would keep them there until their timeout, as if still running (job id = task id)."""
        connection = redis.Redis.from_url(self.settings.redis_url)
        try:
            registry = StartedJobRegistry(self.settings.queue_name, connection=connection)
            for job in Job.fetch_many(task_ids, connection=connection):
                if job is not None:
                    registry.remove_executions(job)
        except RedisError as exc:
            log.warning("supervisor: rq's in-progress registry not cleaned: %r", exc)
        finally:
            connection.close()
