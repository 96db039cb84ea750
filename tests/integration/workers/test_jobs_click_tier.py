"""run_task keeps the click tier that worked per domain in the domain learnings (seed 000
§6.3, Algorithm 5): the next task on that domain starts its cascade there. Real Chromium,
the scripted LLM server, SQLite and Postgres."""

from __future__ import annotations

import json
import re
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

SORT = re.compile(r"\[(\d+:\d+)\] button \"Sort by price\"")


def click_sort_then_done(request: dict[str, Any]) -> Reply:
    """Click the shop's "Sort by price" button once it is shown, then finish."""
    messages = request.get("messages", [])
    if any(m.get("role") == "tool" for m in messages):  # the click came back
        return tool_reply(("done", {"answer": "sorted", "success": True}))
    found = SORT.findall(json.dumps(messages).replace('\\"', '"'))
    if not found:
        return tool_reply(("done", {"answer": "no button", "success": False}))
    return tool_reply(("click", {"ref": found[-1]}))  # the page's, not a prompt example


async def test_the_working_click_tier_is_learned_per_domain(
    embedded: tuple[EmbeddedWorkers, Any],
    sessions: async_sessionmaker[AsyncSession],
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
) -> None:
    workers, _ = embedded
    llm_server.set_policy(click_sort_then_done)
    async with sessions() as s:  # the session's Postgres may hold earlier runs on 127.0.0.1
        before = await repositories.get_domain_learnings(s, tenant_id="default", domain="127.0.0.1")
    wins_before = dict((before or {}).get("click_tier", {}).get("wins", {}))
    task_id = await new_task(
        sessions, start_url=test_site.url("/shop"), max_steps=4, instruction="sort it"
    )
    workers.submit(task_id)
    task = await wait_terminal(sessions, task_id)
    assert task.status == TaskStatus.succeeded, task.error_detail
    async with sessions() as s:
        learned = await repositories.get_domain_learnings(
            s, tenant_id="default", domain="127.0.0.1"
        )
    assert learned["click_tier"]["wins"] == {**wins_before, "cdp": wins_before.get("cdp", 0) + 1}
