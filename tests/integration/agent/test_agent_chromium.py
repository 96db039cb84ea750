"""The whole agent for real: Chromium (PageSession), the openai client, the scripted server.

The scripted policies read only the prompt (the compact snapshot), so these runs also check
that refs, page changes and the untrusted-page framing work end to end.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from app.settings import Settings
from tests.support.llm_server import Reply, ScriptedLLMServer, tool_reply
from tests.support.policies import (
    cheapest_product_policy,
    find_ref,
    form_policy,
    latest_observation,
)
from tests.support.sites import TestSite, cheapest
from workers.agent.loop.loop import run_agent
from workers.agent.protocols import AgentTask
from workers.agent.testing import RecordingSink
from workers.llm.client import OpenAILLM

pytestmark = pytest.mark.browser


@pytest.fixture
async def session(chromium_browser: Any, chromium_path: str) -> AsyncIterator[object]:
    from workers.browser.session import PageSession

    settings = Settings(chromium_path=chromium_path, allow_private_networks=True)
    context = await chromium_browser.new_context()
    page = await context.new_page()
    try:
        yield PageSession(page, settings)
    finally:
        await context.close()


def agent_task(instruction: str, url: str, max_steps: int = 8) -> AgentTask:
    return AgentTask(instruction, url, max_steps, time.monotonic() + 120)


async def test_finds_the_cheapest_product(
    session, llm_server: ScriptedLLMServer, test_site: TestSite
) -> None:
    llm_server.set_policy(cheapest_product_policy)
    llm, sink = OpenAILLM(Settings(llm_base_url=llm_server.base_url)), RecordingSink()
    task = agent_task("Find the cheapest product in the shop and its price.", test_site.url("/"))
    outcome = await run_agent(task, session, llm, sink)
    await llm.close()

    best = cheapest()
    assert outcome.status == "succeeded", outcome
    assert outcome.answer == f"{best.name} at {best.price}"
    assert f"/shop/product/{best.slug}" in test_site.paths
    assert llm_server.rejected == []
    clicks = [e for e in sink.of_type("action.executed") if e["action"] == "click"]
    assert len(clicks) == 3 and all(c["success"] for c in clicks)  # shop, sort, first product
    assert all(sink.screenshots[s].startswith(b"\xff\xd8") for s in range(1, outcome.steps + 1))


async def test_fills_and_submits_the_form_in_one_batch(
    session, llm_server: ScriptedLLMServer, test_site: TestSite
) -> None:
    values = {"Full name": "Ada Lovelace", "Email": "ada@example.org", "Message": "Hello"}
    llm_server.set_policy(form_policy(values, "Returns"))
    llm = OpenAILLM(Settings(llm_base_url=llm_server.base_url))
    task = agent_task("Send the contact form.", test_site.url("/form"))
    outcome = await run_agent(task, session, llm, RecordingSink())
    await llm.close()

    assert outcome.status == "succeeded", outcome
    assert test_site.submissions == [
        {"name": "Ada Lovelace", "email": "ada@example.org", "topic": "returns", "message": "Hello"}
    ]
    assert outcome.answer == "reference 1001" and outcome.steps == 2


async def test_endless_site_runs_out_of_steps(
    session, llm_server: ScriptedLLMServer, test_site: TestSite
) -> None:
    def next_page(request: dict) -> Reply:
        return tool_reply(("click", {"ref": find_ref(latest_observation(request), "link", "Next")}))

    llm_server.set_policy(next_page)
    llm = OpenAILLM(Settings(llm_base_url=llm_server.base_url))
    outcome = await run_agent(
        agent_task("Find the answer.", test_site.url("/counter/1"), max_steps=3),
        session,
        llm,
        RecordingSink(),
    )
    await llm.close()
    assert (outcome.status, outcome.error, outcome.steps) == ("failed", "max_steps", 3)
    assert "/counter/4" in test_site.paths
