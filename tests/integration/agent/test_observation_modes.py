"""Observation modes through the whole agent: real Chromium (PageSession), the openai client
and the scripted server, which reads only the prompt. Mode "pipeline" also routes the
summarizer's prompts to a scripted summarizer; its calls reach the sink via MeteredLLM."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page

from app.settings import Settings
from tests.support.llm_server import Reply, ScriptedLLMServer, request_role, tool_reply
from tests.support.policies import cheapest_product_policy, latest_observation
from tests.support.sites import TestSite, cheapest
from tests.support.summarizer import is_summarizer_request, with_summarizer
from workers.agent.loop.loop import run_agent
from workers.agent.loop.metered import MeteredLLM
from workers.agent.loop.naive import run_naive
from workers.agent.protocols import AgentTask
from workers.agent.testing import RecordingSink
from workers.browser.session import PageSession
from workers.llm.client import OpenAILLM

pytestmark = pytest.mark.browser

LONG_PAGE = Path(__file__).parents[1] / "browser" / "pages" / "long.html"
CHEAPEST = "Find the cheapest product in the shop and its price."


@pytest.fixture
async def page(chromium_browser: Any) -> AsyncIterator[Page]:
    context = await chromium_browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        yield await context.new_page()
    finally:
        await context.close()


def settings_for(server: ScriptedLLMServer) -> Settings:
    return Settings(llm_base_url=server.base_url, llm_max_retries=0)


def agent_task(instruction: str, url: str, mode: str, max_steps: int = 8) -> AgentTask:
    return AgentTask(instruction, url, max_steps, time.monotonic() + 120, observation_mode=mode)


def worker_requests(server: ScriptedLLMServer) -> list[dict[str, Any]]:
    return [r for r in server.requests if not is_summarizer_request(r)]


async def test_pagemem_mode_finds_the_cheapest_product(
    page: Page, llm_server: ScriptedLLMServer, test_site: TestSite
) -> None:
    llm_server.set_policy(cheapest_product_policy)
    llm, sink = OpenAILLM(settings_for(llm_server)), RecordingSink()
    session = await PageSession.open(page, Settings())
    outcome = await run_agent(
        agent_task(CHEAPEST, test_site.url("/"), "pagemem"), session, llm, sink
    )
    await llm.close()

    best = cheapest()
    assert outcome.status == "succeeded", outcome
    assert outcome.answer == f"{best.name} at {best.price}"
    assert llm_server.rejected == []
    # the model read PageMem text: its section outline lines, not the compact view
    pages = [latest_observation(r) for r in llm_server.requests]
    assert all(p.startswith("Page: ") and "\n[s1] " in p for p in pages)


async def test_pipeline_mode_summarizes_for_the_goal_and_counts_the_calls(
    page: Page, llm_server: ScriptedLLMServer, test_site: TestSite
) -> None:
    llm_server.set_policy(with_summarizer(cheapest_product_policy))
    llm, sink = OpenAILLM(settings_for(llm_server)), RecordingSink()
    session = await PageSession.open(page, Settings(), llm=MeteredLLM(llm, sink), goal=CHEAPEST)
    outcome = await run_agent(
        agent_task(CHEAPEST, test_site.url("/"), "pipeline"), session, llm, sink
    )
    await llm.close()

    best = cheapest()
    assert outcome.status == "succeeded", outcome
    assert outcome.answer == f"{best.name} at {best.price}"
    assert llm_server.rejected == []
    summarizer = [r for r in llm_server.requests if is_summarizer_request(r)]
    # section selection, extraction and page summary are asked for the task's goal
    for_goal = [r for r in summarizer if "You summarise sections" not in str(r["messages"])]
    assert for_goal and all(f"Task: {CHEAPEST}" in str(r["messages"]) for r in for_goal)
    # every request the server answered is one llm.call event: Worker and summarizer alike
    calls = sink.of_type("llm.call")
    assert len(calls) == len(llm_server.requests)
    assert [c["role"] for c in calls].count("summarizer") == len(summarizer)
    assert sum(c["input_tokens"] for c in calls) == sum(llm_server.prompt_tokens())
    agent = worker_requests(llm_server)  # the Worker's and the Planner's calls
    assert outcome.llm_calls == len(agent)
    assert len([r for r in agent if request_role(r) == "other"]) == outcome.steps
    # the Worker saw the pipeline's observation (summary + controls), refs of the live snapshot
    observed = [latest_observation(r) for r in worker_requests(llm_server)]
    assert all("\n\nControls:\n" in text for text in observed)
    stats = sink.of_type("observation")[0]["stats"]
    assert stats["pipeline"]["calls"] > 0 and stats["pipeline"]["selected"]


async def test_pipeline_mode_without_an_llm_is_a_configuration_error(
    page: Page, llm_server: ScriptedLLMServer, test_site: TestSite
) -> None:
    llm_server.set_policy(cheapest_product_policy)
    llm = OpenAILLM(settings_for(llm_server))
    session = await PageSession.open(page, Settings())
    outcome = await run_agent(
        agent_task(CHEAPEST, test_site.url("/"), "pipeline"), session, llm, RecordingSink()
    )
    await llm.close()
    assert (outcome.status, outcome.error) == ("failed", "configuration")
    assert "summarizer LLM" in outcome.reason and llm_server.requests == []


async def test_naive_sees_the_whole_page_that_compact_trims(
    page: Page, llm_server: ScriptedLLMServer
) -> None:
    def done(request: dict[str, Any]) -> Reply:
        return tool_reply(("done", {"answer": "seen", "success": True}))

    llm_server.set_policy(done)
    settings = Settings(snapshot_max_tokens=400)
    session = await PageSession.open(page, settings)
    await session.goto(LONG_PAGE.as_uri())
    compact = await session.observe("compact")
    assert compact.stats["trimmed"] and "Product 40" not in compact.text

    llm = OpenAILLM(settings_for(llm_server))
    task = agent_task("Read the catalogue.", LONG_PAGE.as_uri(), "compact")
    outcome = await run_naive(task, session, llm, RecordingSink())
    await llm.close()
    assert outcome.success
    prompt = latest_observation(llm_server.requests[-1])
    assert '"Product 40"' in prompt and "Add 40" in prompt and "trimmed" not in prompt
