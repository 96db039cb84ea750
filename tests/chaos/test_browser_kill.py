"""Chromium killed mid-task (issue 13, scenario 3): the task ends `browser_crashed` within 5 s,
the pool launches a new browser, and the next 20 tasks succeed. Real Chromium, the embedded
worker's real pool and job path, the scripted model server, a local site."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.contracts import ErrorCode, TaskStatus
from app.db import create_engine, session_factory
from app.db.migrate import upgrade
from app.events import MemoryEventBus
from tests.integration.workers.conftest import new_task
from tests.integration.workers.test_jobs import (
    Sessions,
    read_home_policy,
    stored_events,
    wait_terminal,
    worker_settings,
)
from tests.support.llm_server import Reply, ScriptedLLMServer, text_reply
from tests.support.policies import latest_observation
from tests.support.sites import TestSite
from workers.process.embedded import EmbeddedWorkers

pytestmark = [pytest.mark.browser, pytest.mark.chaos]

HOLD = "hold the page open"
NEXT_TASKS = 20
DETECT_S = 5.0


def policy(request: dict[str, Any]) -> Reply:
    """The held task's first model call lasts a minute; every other task finishes at once."""
    if HOLD in str(request.get("messages")) and latest_observation(request):
        return dataclasses.replace(text_reply("thinking"), delay_s=60)
    return read_home_policy(request)


@pytest.fixture
async def sessions(sqlite_url: str) -> AsyncIterator[Sessions]:
    upgrade(sqlite_url)
    engine = create_engine(sqlite_url)
    yield session_factory(engine)
    await engine.dispose()


async def test_killed_chromium_fails_the_task_fast_and_the_pool_recovers(
    chromium_path: str,
    sqlite_url: str,
    sessions: Sessions,
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
) -> None:
    llm_server.set_policy(policy)
    settings = worker_settings(chromium_path, sqlite_url, llm_server)
    workers = EmbeddedWorkers(settings, MemoryEventBus(), 1)
    await asyncio.to_thread(workers.start)
    try:
        pool = workers.runtime.pool
        held = await new_task(sessions, start_url=test_site.url("/"), instruction=HOLD)
        seen = len(llm_server.requests)
        workers.submit(held)
        async with asyncio.timeout(60):  # until the held model call is in flight
            while not any(HOLD in str(r.get("messages")) for r in llm_server.requests[seen:]):
                await asyncio.sleep(0.1)
        pid = pool._browser_pid
        assert pid is not None
        os.kill(pid, signal.SIGKILL)
        killed = time.monotonic()
        task = await wait_terminal(sessions, held, timeout=60)
        detected = time.monotonic() - killed
        assert (task.status, task.error) == (TaskStatus.failed, ErrorCode.browser_crashed)
        assert detected < DETECT_S, f"crash took {detected:.1f}s to end the task"
        rows = await stored_events(sessions, held)
        assert rows[-1].type == "task.finished"
        assert rows[-1].data["error"] == "browser_crashed"

        for _ in range(NEXT_TASKS):
            task_id = await new_task(sessions, start_url=test_site.url("/"), max_steps=3)
            workers.submit(task_id)
            task = await wait_terminal(sessions, task_id, timeout=90)
            assert task.status == TaskStatus.succeeded, task.error_detail
        assert pool._browser_pid not in (None, pid)
        assert pool.stats().launches == 2  # relaunched once, then reused
    finally:
        await asyncio.to_thread(workers.stop)
