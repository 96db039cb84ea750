"""Issue 34 "Dead ends that can be wrong": a reload or a navigation back to the start is
never a dead end; an earlier run's "led nowhere" is tried again when the page changed."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

from workers.agent.loop.batch import BatchRunner
from workers.agent.loop.loop import run_agent
from workers.agent.memory.ledger import DeadEnd, Ledger, page_fingerprint
from workers.agent.protocols import Action, AgentTask, Observation, ToolResult
from workers.agent.testing import (
    BRAIN_SIDE,
    FakeBrowser,
    FakeLLM,
    InMemoryMemoryStore,
    RecordingSink,
    reply,
)

START = "http://games.test/game.html"
PAGE = '[3:1] button "Start"\n[3:2] link "Request a quote"\nRound 2'


def _runner() -> BatchRunner:
    none: Any = None
    navigation: Any = SimpleNamespace(start_url=START)
    return BatchRunner(none, navigation, none, Ledger("goal"), none, none)


def test_a_reload_or_a_way_back_to_the_start_is_no_dead_end() -> None:
    runner = _runner()
    state = Observation(f"{START}#round2", "Game", PAGE, 3)
    missed = ToolResult(success=False, error="no_effect", reason="nothing changed")
    for url in (START, f"{START}#round2", f"{START}/"):
        assert not runner.ingest(1, Action("navigate", {"url": url}), missed, state)
    assert not runner.ingest(1, Action("reload", {}), missed, state)
    assert runner.ledger.dead_ends == []
    assert not runner.ingest(2, Action("click", {"ref": "3:2"}), missed, state)
    assert len(runner.ledger.dead_ends) == 1  # any other action still is one


def test_an_earlier_led_nowhere_is_tried_again_once_the_page_changed() -> None:
    old = DeadEnd(
        "click Request a quote failed: no effect",
        START,
        "postcondition_miss",
        1,
        "click:quote",
        'link "Request a quote"',
        state=page_fingerprint(PAGE),
    )
    ledger = Ledger("goal")
    ledger.load_dead_ends([old])
    assert ledger.relevant_dead_ends(START, PAGE)  # the same page: still a dead end
    repaired = PAGE.replace("Round 2", "Round 2\nQuotes are back")
    assert ledger.relevant_dead_ends(START, repaired) == []  # the site changed: try again
    blocked = DeadEnd("x", START, "policy_block", 1, "click:quote", 'link "Request a quote"')
    ledger.load_dead_ends([blocked])
    assert ledger.relevant_dead_ends(START, repaired)  # other causes stand


class WinningClick(FakeBrowser):
    """The click that wins the game is judged "no effect", yet the page shows the win."""

    async def execute(self, action: Action) -> ToolResult:
        result = await super().execute(action)
        if action.name == "click":
            self.text_extra = "\nYou won!"
            return ToolResult(success=False, reason="nothing changed", error="no_effect")
        return result


async def _game(won: bool) -> InMemoryMemoryStore:
    store = InMemoryMemoryStore()
    browser = WinningClick({START: [("button", "Play", None)]})
    task = AgentTask("win the game", START, 5, time.monotonic() + 60)
    finish = reply(("done", {"answer": "won" if won else "lost", "success": won}))
    llm = FakeLLM([reply(("click", {"ref": "1:1"})), finish], BRAIN_SIDE)
    await run_agent(task, browser, llm, RecordingSink(), memory=store)
    return store


async def test_the_action_a_run_won_with_is_no_dead_end() -> None:
    assert (await _game(won=True)).domain_dead_ends == {}
    lost = await _game(won=False)
    assert [d.cause for d in lost.domain_dead_ends["games.test"]] == ["postcondition_miss"]
