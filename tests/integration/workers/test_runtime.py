"""WorkerRuntime: a loop thread owning browser + engine; run() from sync code with a deadline."""

from __future__ import annotations

import asyncio
import threading

import pytest
from sqlalchemy import text

from app.events import MemoryEventBus
from app.settings import Settings
from workers.process.runtime import WorkerRuntime

pytestmark = pytest.mark.browser


def test_runs_coroutines_on_its_own_loop_and_stops_cleanly(
    chromium_path: str, sqlite_url: str
) -> None:
    settings = Settings(chromium_path=chromium_path, database_url=sqlite_url)
    rt = WorkerRuntime(settings, MemoryEventBus())
    rt.start()
    try:
        assert rt.pool.ready

        async def probe() -> tuple[str, int]:
            async with rt.sessions() as s:
                one = (await s.execute(text("SELECT 1"))).scalar_one()
            async with rt.pool.context() as page:
                await page.set_content("<title>warm</title>")
                return await page.title(), one

        assert rt.run(probe, 60) == ("warm", 1)
        loop_threads = {t.name for t in threading.enumerate() if t.name.startswith("worker-loop")}
        assert len(loop_threads) == 1
    finally:
        rt.stop()
    assert not rt.started
    assert not any(t.name.startswith("worker-loop") for t in threading.enumerate())


def test_run_deadline_cancels_the_coroutine(chromium_path: str, sqlite_url: str) -> None:
    rt = WorkerRuntime(
        Settings(chromium_path=chromium_path, database_url=sqlite_url), MemoryEventBus()
    )
    rt.start()
    cancelled = threading.Event()

    async def slow() -> None:
        try:
            await asyncio.sleep(30)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    try:
        with pytest.raises(TimeoutError):
            rt.run(slow, 0.2)
        assert cancelled.wait(5)
        assert rt.run(lambda: asyncio.sleep(0, result="still usable"), 5) == "still usable"
    finally:
        rt.stop()
