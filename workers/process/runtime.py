"""One worker process's long-lived parts, owned by a single event-loop thread.

rq calls jobs synchronously; Playwright, the async DB engine and the LLM client are bound to
the loop that created them. So a dedicated thread runs that loop forever and sync code
(rq's job call, the embedded thread pool) submits coroutines to it with `run()`.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable, Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app import logredact
from app.db import create_engine, session_factory
from app.events import EventBus
from app.settings import Settings
from app.store import ArtifactStore, open_store
from workers.agent.protocols import LLM
from workers.browser.observe import tokens
from workers.browser.runtime.pool import BrowserPool
from workers.process.worker_id import make_worker_id

__all__ = ["LLMFactory", "WorkerRuntime", "current", "default_llm", "install", "make_worker_id"]

log = logging.getLogger(__name__)

T = TypeVar("T")
LLMFactory = Callable[[Settings], LLM]
START_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 30.0


def default_llm(settings: Settings) -> LLM:
    from workers.llm.client import OpenAILLM

    return OpenAILLM(settings)


class WorkerRuntime:
    """Event-loop thread + warm browser pool + the worker's own DB engine + LLM client."""

    def __init__(
        self,
        settings: Settings,
        bus: EventBus,
        *,
        worker_id: str | None = None,
        llm_factory: LLMFactory = default_llm,
    ) -> None:
        self.settings = settings
        self.bus = bus
        self.worker_id = worker_id or make_worker_id()
        logredact.install()  # no secret value or API key in this process's logs
        self._llm_factory = llm_factory
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._pool: BrowserPool | None = None
        self._engine: AsyncEngine | None = None
        self._sessions: async_sessionmaker[AsyncSession] | None = None
        self._llm: LLM | None = None
        self.store: ArtifactStore = open_store(settings)  # artifact bytes (app/store)
        self._running: set[Future[Any]] = set()  # coroutines run() is waiting on (jobs)
        self._running_lock = threading.Lock()

    # -- parts, available between start() and stop() -------------------------------------
    @property
    def pool(self) -> BrowserPool:
        assert self._pool is not None, "WorkerRuntime not started"
        return self._pool

    @property
    def sessions(self) -> async_sessionmaker[AsyncSession]:
        assert self._sessions is not None, "WorkerRuntime not started"
        return self._sessions

    @property
    def llm(self) -> LLM:
        assert self._llm is not None, "WorkerRuntime not started"
        return self._llm

    @property
    def started(self) -> bool:
        return self._loop is not None and self._loop.is_running()

    # -- lifecycle ------------------------------------------------------------------------
    def start(self, timeout: float = START_TIMEOUT_S) -> None:
        """Start the loop thread and, on it, the browser, engine and LLM client."""
        if self._thread is not None:
            return
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._thread = threading.Thread(
            target=self._serve, args=(loop,), name=f"worker-loop-{self.worker_id}", daemon=True
        )
        self._thread.start()
        try:
            self.run(self._astart, timeout)
        except BaseException:
            self.stop()
            raise

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> None:
        """Close browser, LLM client and engine on the loop, then end the thread."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        try:
            if loop.is_running():
                self.run(self._astop, timeout)
        except TimeoutError:
            log.warning("worker runtime did not stop within %.0fs", timeout)
        finally:
            loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout)
        if not thread.is_alive():
            loop.close()
        self._loop = self._thread = None

    def run(self, coro_factory: Callable[[], Coroutine[Any, Any, T]], timeout: float | None) -> T:
        """Run a coroutine on the runtime's loop from sync code; cancel it at the deadline."""
        loop = self._loop
        if loop is None:
            raise RuntimeError("WorkerRuntime not started")
        if threading.current_thread() is self._thread:
            raise RuntimeError("WorkerRuntime.run() called from its own loop (would deadlock)")
        future: Future[T] = asyncio.run_coroutine_threadsafe(coro_factory(), loop)
        with self._running_lock:
            self._running.add(future)
        try:
            return future.result(timeout)
        except BaseException:
            # deadline, rq's job-timeout alarm or a cold shutdown: stop the coroutine too
            future.cancel()
            raise
        finally:
            with self._running_lock:
                self._running.discard(future)

    def interrupt(self) -> int:
        """Cancel every coroutine run() is waiting on (the running jobs) → how many."""
        with self._running_lock:
            running = list(self._running)
        for future in running:
            future.cancel()
        return len(running)

    @staticmethod
    def _serve(loop: asyncio.AbstractEventLoop) -> None:
        asyncio.set_event_loop(loop)
        loop.run_forever()
        # cancel whatever is left (e.g. a job abandoned at its deadline) before closing
        pending = asyncio.all_tasks(loop)
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.run_until_complete(loop.shutdown_asyncgens())

    async def _astart(self) -> None:
        self._engine = create_engine(self.settings.effective_database_url)
        self._sessions = session_factory(self._engine)
        self._llm = self._llm_factory(self.settings)
        self._pool = BrowserPool(self.settings)
        # the tokenizer's vocabulary loads beside Chromium, so no task's first observe waits
        await asyncio.gather(self._pool.start(), asyncio.to_thread(tokens.warm))
        log.info("worker %s ready", self.worker_id)

    async def _astop(self) -> None:
        if self._pool is not None:
            await self._pool.close()
        close_llm = getattr(self._llm, "close", None)
        if close_llm is not None:
            await close_llm()
        close_bus = getattr(self.bus, "aclose", None)
        if close_bus is not None:
            await close_bus()  # the Redis bus keeps one client per loop; this is ours
        if self._engine is not None:
            await self._engine.dispose()


_current: WorkerRuntime | None = None


def install(runtime: WorkerRuntime | None) -> None:
    """Make `runtime` the process's runtime for `workers.jobs.run_task` (None to clear)."""
    global _current
    _current = runtime


def current() -> WorkerRuntime:
    if _current is None:
        raise RuntimeError("no WorkerRuntime installed in this process (webagent worker/serve)")
    return _current
