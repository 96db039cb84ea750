"""A worker that loses ownership of its task stops acting on it (and does not finish it)."""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Any

import pytest
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.contracts import TaskStatus
from app.db import Task, repositories
from app.events import MemoryEventBus
from tests.integration.workers.conftest import new_task, wait_until
from tests.integration.workers.test_jobs import embedded, stored_events  # noqa: F401
from tests.support.llm_server import Reply, ScriptedLLMServer, tool_reply
from tests.support.sites import TestSite
from workers import jobs
from workers.process.embedded import EmbeddedWorkers

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.both_databases]

Sessions = async_sessionmaker[AsyncSession]


def slow_done(request: dict[str, Any]) -> Reply:
    """A model call long enough for several heartbeats (0.2 s) to see the loss."""
    reply = tool_reply(("done", {"answer": "acted after losing the task", "success": True}))
    return dataclasses.replace(reply, delay_s=4.0)


async def test_lost_ownership_stops_the_run(
    embedded: tuple[EmbeddedWorkers, MemoryEventBus],  # noqa: F811
    sessions: Sessions,
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
) -> None:
    llm_server.set_policy(slow_done)
    task_id = await new_task(sessions, start_url=test_site.url("/"))
    run = asyncio.create_task(asyncio.to_thread(jobs.run_task, task_id))
    await wait_until(lambda: len(llm_server.requests) >= 1)
    async with sessions() as s:  # another worker took the task over (e.g. after a stall)
        await s.execute(update(Task).where(Task.id == task_id).values(worker_id="w-other"))
        await s.commit()
    before = len(await stored_events(sessions, task_id))  # e.g. the start-page navigate
    await asyncio.wait_for(run, timeout=30)  # run_task returned: the positive signal

    async with sessions() as s:
        task = await repositories.get_task(s, task_id=task_id)
    assert task is not None
    assert task.status == TaskStatus.running and task.worker_id == "w-other"
    after = [r.type for r in (await stored_events(sessions, task_id))[before:]]
    assert "task.finished" not in after and "action.executed" not in after
