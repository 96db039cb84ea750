"""The brain's worth in model calls (issue 33): on a task of 10+ steps, the three-role loop
makes at most one model call more than the Worker alone for the same moves.

The local kettle shop (tests/support/route_shop.py: a consent dialog, a filter form with a
compound dropdown, a result list, a product page with a quote form) in real Chromium. One
scripted Worker decides every step from the page it is shown, by element names, and writes
the seed 003 §6.3 notes beside its calls; at step 3 it clicks a ref that no longer exists
(one failed step, recovered at once). Both configurations get the same moves: `run_agent`
(Planner + Worker over the Ledger, adaptive memory) and `run_worker_only`. Every call of
every role is counted (the Planner and the summarizer answered by the test doubles' side
roles). The stated constant is 1: the Planner's verification of the completion claim
(seed 000 §4.1: "the only place the task is done can be declared")."""

from __future__ import annotations

import json
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping, Sequence
from typing import Any

import pytest
from playwright.async_api import Browser

from app.settings import Settings
from tests.support.route_shop import ShopServer, next_move, ref, total
from workers.agent.loop.loop import run_agent, run_worker_only
from workers.agent.protocols import LLM, AgentOutcome, AgentTask, EventSink, LLMReply
from workers.agent.testing import BRAIN_SIDE, FakeLLM, RecordingSink, message_text, reply
from workers.browser.session import PageSession

pytestmark = pytest.mark.browser
COLOUR, NAME, SIZE, CITY = "blue", "Nimbus", "1.7 L", "Lisbon"
BRAIN_EXTRA_CALLS = 1  # the completion claim's verification
STALE_AT = 3  # the step whose click names a ref of an old snapshot
Runner = Callable[[AgentTask, PageSession, LLM, EventSink], Awaitable[AgentOutcome]]


def instruction() -> str:
    return (
        f"In the kettle shop, filter colour {COLOUR} and in stock only, open the "
        f'"{NAME}" kettle, choose size {SIZE} with express delivery to {CITY} and report '
        "the total"
    )


def _page(messages: Sequence[Mapping[str, Any]]) -> str:
    """The newest page the Worker was shown."""
    blocks = re.findall(r"<page_content[^>]*>(.*?)</page_content>", message_text(messages), re.S)
    return blocks[-1] if blocks else ""


class ShopWorker:
    """The same moves whatever the configuration: one per step, chosen from the page."""

    def __init__(self) -> None:
        self.step = 0
        self.moves: list[str] = []

    def __call__(self, messages: Sequence[Mapping[str, Any]]) -> LLMReply:
        self.step += 1
        page = _page(messages)
        notes = {
            "evaluation_previous_goal": "Success: the page shows the effect"
            if self.step != STALE_AT + 1
            else "Failed: the Colour button's ref was stale; use the current snapshot's ref",
            "memory": f"step {self.step}: filters for {COLOUR}, then the {NAME} quote",
            "next_goal": "the next control of the task",
        }
        found = re.search(r"Total: ([\d.]+ EUR)", page)
        if found:
            return self._say(notes, "done", {"answer": found[1], "success": True})
        if self.step == STALE_AT:
            return self._say(notes, "click", {"ref": "1:999"})
        for tool, role, element, args in next_move(page, COLOUR, NAME, SIZE, CITY):
            at = ref(page, role, element)
            if at is not None:
                return self._say(notes, tool, {"ref": at, **args})
        return self._say(notes, "done", {"answer": "not shown", "success": False})

    def _say(self, notes: dict[str, str], tool: str, args: dict[str, Any]) -> LLMReply:
        self.moves.append(f"{tool} {sorted(k for k in args if k != 'ref')}")
        made = reply((tool, args))
        return LLMReply(json.dumps(notes), made.tool_calls, 100, 10, "shop-worker", 0.0, "")


@pytest.fixture
def shop() -> Iterator[ShopServer]:
    server = ShopServer()
    yield server
    server.close()


@pytest.fixture
async def sessions(
    chromium_browser: Browser, settings: Settings
) -> AsyncIterator[Callable[[], Awaitable[PageSession]]]:
    contexts = []

    async def fresh() -> PageSession:
        context = await chromium_browser.new_context(viewport={"width": 1280, "height": 800})
        contexts.append(context)
        return await PageSession.open(await context.new_page(), settings)

    yield fresh
    for context in contexts:
        await context.close()


async def _run(
    runner: Runner, session: PageSession, shop: ShopServer
) -> tuple[AgentOutcome, FakeLLM, ShopWorker]:
    worker = ShopWorker()
    llm = FakeLLM([worker] * 40, BRAIN_SIDE)
    task = AgentTask(instruction(), f"{shop.base_url}/", 30, time.monotonic() + 120)
    outcome = await runner(task, session, llm, RecordingSink())
    return outcome, llm, worker


async def test_the_brain_costs_at_most_one_call_more_than_the_worker_alone(
    shop: ShopServer, sessions: Callable[[], Awaitable[PageSession]]
) -> None:
    alone, alone_llm, alone_worker = await _run(run_worker_only, await sessions(), shop)
    brain, brain_llm, brain_worker = await _run(run_agent, await sessions(), shop)
    expected = total(NAME, SIZE)
    assert (alone.success, alone.answer) == (True, expected.split()[0] + " EUR"), alone
    assert (brain.success, brain.answer) == (True, expected.split()[0] + " EUR"), brain
    assert brain_worker.moves == alone_worker.moves  # the same moves, step for step
    assert alone.steps >= 10 and brain.steps == alone.steps
    roles = [role for role, _, _ in brain_llm.calls]
    assert len(alone_llm.calls) == alone.steps  # the Worker alone: one call per step
    assert len(brain_llm.calls) <= len(alone_llm.calls) + BRAIN_EXTRA_CALLS, roles
    assert roles.count("planner") == 1 and roles[-1] == "planner"  # the claim's verification
