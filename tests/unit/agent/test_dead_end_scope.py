"""Issue 34 "Dead ends that can be wrong": a reload or a navigation back to the start is
never a dead end; an earlier run's "led nowhere" is tried again when the page changed."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from workers.agent.loop.batch import BatchRunner
from workers.agent.memory.ledger import DeadEnd, Ledger, page_fingerprint
from workers.agent.protocols import Action, Observation, ToolResult

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
