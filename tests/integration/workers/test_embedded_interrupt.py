"""Ctrl-C on `webagent serve` during a run (issue 23 §6): measured on main, the service took
16 s to stop and the task was found `worker_lost` at the next start. Stopping the embedded
workers now ends a running task `failed` / `interrupted` (announced with task.finished)
before the process goes, without waiting out the old 10 s grace."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.contracts import ErrorCode, TaskStatus
from app.db import repositories
from app.events import MemoryEventBus
from tests.integration.workers.conftest import new_task, wait_until
from tests.integration.workers.test_jobs import stored_events, worker_settings
from tests.support.llm_server import ScriptedLLMServer
from workers.agent.testing import FakeLLM
from workers.process.embedded import STOP_GRACE_S, EmbeddedWorkers

pytestmark = pytest.mark.browser

Sessions = async_sessionmaker[AsyncSession]


def hanging_llm(_settings: Any) -> FakeLLM:
    return FakeLLM([])  # every model call waits forever, like a slow endpoint mid-run


async def test_stop_during_a_run_ends_the_task_interrupted(
    chromium_path: str, db_url: str, llm_server: ScriptedLLMServer, sessions: Sessions
) -> None:
    settings = worker_settings(chromium_path, db_url, llm_server)
    workers = EmbeddedWorkers(settings, MemoryEventBus(), 1, llm_factory=hanging_llm)
    await asyncio.to_thread(workers.start)
    task_id = await new_task(sessions, start_url=None, instruction="what is 2+2?")
    workers.submit(task_id)

    async def running() -> bool:
        async with sessions() as s:
            task = await repositories.get_task(s, task_id=task_id)
        return task is not None and task.status == TaskStatus.running.value

    async with asyncio.timeout(60):
        while not await running():
            await asyncio.sleep(0.05)
    await wait_until(lambda: workers.depth() == 0)
    await asyncio.to_thread(workers.stop)

    async with sessions() as s:
        task = await repositories.get_task(s, task_id=task_id)
    assert task is not None
    assert (task.status, task.error) == (TaskStatus.failed.value, ErrorCode.interrupted.value)
    assert "stopped" in (task.error_detail or "")
    finished = [e for e in await stored_events(sessions, task_id) if e.type == "task.finished"]
    assert finished and finished[-1].data["error"] == "interrupted"
    assert STOP_GRACE_S <= 3  # the grace a running task gets before it is interrupted
