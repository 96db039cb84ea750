"""run_task persists the run's Ledger through DbMemoryStore, and the next task on the same
domain starts with the dead ends the first one recorded (seed 000 §5.2). Real Chromium,
the scripted LLM server, SQLite and Postgres."""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.contracts import TaskStatus
from app.db import repositories
from tests.integration.workers.conftest import new_task
from tests.integration.workers.test_jobs import embedded, wait_terminal
from tests.support.llm_server import Reply, ScriptedLLMServer, tool_reply
from tests.support.sites import TestSite
from workers.process.embedded import EmbeddedWorkers

pytestmark = [pytest.mark.browser, pytest.mark.services]
__all__ = ["embedded"]  # the fixture, re-used from test_jobs

Sessions = async_sessionmaker[AsyncSession]
DOWN = "http://127.0.0.1:1/"  # nothing listens on port 1: the navigation fails


def fail_once_then_done(request: dict[str, Any]) -> Reply:
    """Navigate somewhere unreachable; once that failure came back, finish."""
    failed = any(
        m.get("role") == "tool" and '"success":false' in str(m.get("content")).replace(" ", "")
        for m in request.get("messages", [])
    )
    if failed:
        return tool_reply(("done", {"answer": "the other site is down", "success": True}))
    return tool_reply(("navigate", {"url": DOWN}))


async def _run(workers: EmbeddedWorkers, sessions: Sessions, url: str) -> str:
    task_id = await new_task(sessions, start_url=url, max_steps=4, instruction="press it")
    workers.submit(task_id)
    task = await wait_terminal(sessions, task_id)
    assert task.status == TaskStatus.succeeded, task.error_detail
    return task_id


async def test_a_run_leaves_its_ledger_and_the_next_run_starts_with_its_dead_ends(
    embedded: tuple[EmbeddedWorkers, Any],
    sessions: Sessions,
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
) -> None:
    workers, _ = embedded
    llm_server.set_policy(fail_once_then_done)
    url = test_site.url("/")
    first = await _run(workers, sessions, url)
    async with sessions() as s:
        ledger = await repositories.get_ledger(s, task_id=first)
        steps = await repositories.list_ledger_steps(s, task_id=first)
        dead = await repositories.list_dead_ends(s, tenant_id="default", task_id=first)
    assert ledger is not None and ledger.data["goal"] == "press it"
    assert [r.step for r in steps] == [s["step"] for s in ledger.data["recent"]]
    assert not steps[0].data["success"], steps[0].data
    assert len(dead) == 1 and dead[0].url == url and dead[0].domain == "127.0.0.1"
    assert dead[0].cause == "network" and DOWN in json.dumps(dead[0].signature)

    llm_server.set_policy(lambda _: tool_reply(("done", {"answer": "ok", "success": True})))
    second = await _run(workers, sessions, url)  # fails nothing itself
    async with sessions() as s:
        again = await repositories.get_ledger(s, task_id=second)
    assert again is not None
    # earlier runs on 127.0.0.1 in this test session may have left dead ends of their own
    assert (url, "network") in [(d["url"], d["cause"]) for d in again.data["remembered"]]
    async with sessions() as s:
        assert await repositories.list_dead_ends(s, tenant_id="default", task_id=second) == []
