"""Cancel interrupts the in-flight model call, and no action (nor `done`) runs after it."""

from __future__ import annotations

import asyncio
import dataclasses
import time
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.contracts import TaskStatus
from app.db import create_engine, repositories, session_factory
from app.events import MemoryEventBus
from tests.integration.workers.conftest import new_task, wait_until
from tests.integration.workers.test_jobs import embedded, stored_events, wait_terminal  # noqa: F401
from tests.support.llm_server import Reply, ScriptedLLMServer, tool_reply
from tests.support.sites import TestSite
from workers.process.embedded import EmbeddedWorkers

pytestmark = [pytest.mark.browser, pytest.mark.services]

Sessions = async_sessionmaker[AsyncSession]
DONE = tool_reply(("done", {"answer": "finished despite the cancel", "success": True}))


async def _request_cancel(sessions: Sessions, task_id: str) -> None:
    async with sessions() as s:
        assert await repositories.request_cancel(s, task_id=task_id, tenant_id="default")
        await s.commit()


async def _persisted_before_the_call(sessions: Sessions, task_id: str) -> int:
    """How many events the run had when its worker model call went out: events are written
    behind the run, so wait until the last one before the call (the worker's
    `memory.evicted`) is stored."""
    async with asyncio.timeout(30):
        while True:
            rows = await stored_events(sessions, task_id)
            if rows and rows[-1].type == "memory.evicted" and rows[-1].data["role"] == "worker":
                return len(rows)
            await asyncio.sleep(0.05)


async def test_cancel_interrupts_the_model_call(
    embedded: tuple[EmbeddedWorkers, MemoryEventBus],  # noqa: F811
    sessions: Sessions,
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
) -> None:
    workers, _ = embedded
    llm_server.set_policy(lambda request: dataclasses.replace(DONE, delay_s=15.0))
    task_id = await new_task(sessions, start_url=test_site.url("/"))
    workers.submit(task_id)
    await wait_until(lambda: len(llm_server.requests) >= 1)  # the model call is in flight
    before = await _persisted_before_the_call(sessions, task_id)
    await _request_cancel(sessions, task_id)
    acknowledged = time.monotonic()
    task = await wait_terminal(sessions, task_id, timeout=30)
    took = time.monotonic() - acknowledged

    assert task.status == TaskStatus.cancelled and task.answer is None
    assert took < 5.0, f"cancel took {took:.1f}s"  # issue 13: within 5 s (was the whole call)
    after = [(r.type, r.data) for r in (await stored_events(sessions, task_id))[before:]]
    assert [t for t, _ in after] == ["task.finished"]  # no action.executed after the cancel
    assert after[0][1]["status"] == "cancelled"


async def test_cancel_arriving_with_the_answer_wins(
    embedded: tuple[EmbeddedWorkers, MemoryEventBus],  # noqa: F811
    db_url: str,
    sessions: Sessions,
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
) -> None:
    """The cancel is committed before the model's `done` reaches the loop: never `succeeded`."""
    workers, _ = embedded
    task_ids: list[str] = []

    async def cancel_from_server_thread() -> None:
        engine = create_engine(db_url)
        try:
            await _request_cancel(session_factory(engine), task_ids[0])
        finally:
            await engine.dispose()

    def cancel_then_done(request: dict[str, Any]) -> Reply:
        asyncio.run(cancel_from_server_thread())
        return DONE

    llm_server.set_policy(cancel_then_done)
    task_ids.append(await new_task(sessions, start_url=test_site.url("/")))
    workers.submit(task_ids[0])
    task = await wait_terminal(sessions, task_ids[0], timeout=60)
    assert task.status == TaskStatus.cancelled and task.answer is None
    rows = await stored_events(sessions, task_ids[0])
    assert not [r for r in rows if r.type == "action.executed" and r.data.get("step", 0) >= 1]
