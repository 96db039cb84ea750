"""Algorithm 7 (seed 000 App. D): the paper's examples, the weights, learnings, the breaker."""

from __future__ import annotations

import pytest

from workers.agent.roles.orchestrator import (
    DELEGATION_PREFIX,
    Orchestrator,
    classify_task,
    task_hash,
)
from workers.agent.testing import InMemoryMemoryStore

WIKI = "https://en.wikipedia.org/wiki/Norway"


def test_capital_of_norway_is_a_search() -> None:
    decision = classify_task("What is the capital of Norway", WIKI)
    assert (decision.kind, decision.confidence) == ("search", 0.6)
    assert "factual" in decision.families


def test_booking_the_cheapest_flight_is_a_browser_task() -> None:
    decision = classify_task("book the cheapest flight", None)
    assert (decision.kind, decision.confidence) == ("browser", 0.8)
    assert "action" in decision.families and "date" not in decision.families


def test_paper_booking_example_adds_transactional_date_and_target_weights() -> None:
    decision = classify_task(
        "book a 3-day stay in Khulna on gozayaan.com, check-in April 23, under $40/night"
    )
    # ActionVerbs 0.80 + Transactional ∧ Date 0.90 + ExplicitTarget 0.85 + Brand 0.70
    assert decision.kind == "browser"
    assert decision.confidence == pytest.approx(0.80 + 0.90 + 0.85 + 0.70)
    assert {"action", "transactional", "date", "explicit_target", "brand"} <= set(decision.families)


def test_transactional_without_a_date_gets_no_transactional_weight() -> None:
    assert classify_task("reserve a hotel").confidence == pytest.approx(0.80)
    assert classify_task("reserve a hotel for tomorrow").confidence == pytest.approx(1.70)


def test_aggregation_needs_plural_context() -> None:
    plural = classify_task("compare the prices of all laptops")
    assert (plural.kind, plural.confidence) == ("search", 0.7)
    assert classify_task("compare it").confidence == 0.0


def test_visual_only_blocks_the_factual_lookup_weight() -> None:
    decision = classify_task("what colour is the logo")
    assert (decision.kind, decision.confidence) == ("browser", 0.8)


def test_ties_go_to_the_browser() -> None:
    assert classify_task("hello there").kind == "browser"


def test_domain_learning_overrides_only_above_point_eight() -> None:
    strong = {"route": {"kind": "browser", "confidence": 0.85}}
    weak = {"route": {"kind": "browser", "confidence": 0.8}}
    assert classify_task("What is the capital of Norway", WIKI, strong).kind == "browser"
    assert classify_task("What is the capital of Norway", WIKI, strong).source == "learning"
    assert classify_task("What is the capital of Norway", WIKI, weak).kind == "search"
    assert classify_task("What is the capital of Norway", None, strong).kind == "search"


async def test_outcomes_become_a_learned_route() -> None:
    store = InMemoryMemoryStore()
    orchestrator = Orchestrator(store)
    for _ in range(4):  # (4 + 1) / (4 + 2) = 0.833 > 0.8
        await orchestrator.record("find the opening hours", WIKI, "browser", "9-17", True)
    decision = await orchestrator.decide("What is the capital of Norway", WIKI)
    assert (decision.kind, decision.source) == ("browser", "learning")
    assert decision.confidence == pytest.approx(5 / 6, abs=1e-3)


async def test_circuit_breaker_refuses_a_second_substantive_lookup() -> None:
    store = InMemoryMemoryStore()
    orchestrator = Orchestrator(store)
    question = "What is the capital of Norway"
    assert await orchestrator.prior_result(question, WIKI) is None
    await orchestrator.record(question, WIKI, "search", "", False)  # nothing found: retry allowed
    assert await orchestrator.prior_result(question, WIKI) is None
    await orchestrator.record(question, WIKI, "search", "Oslo", True)
    prior = await orchestrator.prior_result("what is the capital  of norway", WIKI)
    assert prior is not None and prior["answer"] == "Oslo"
    key = DELEGATION_PREFIX + task_hash(question)
    assert key in store.learnings["en.wikipedia.org"]
    await orchestrator.record("book it", WIKI, "browser", "booked", True)
    assert await orchestrator.prior_result("book it", WIKI) is None  # transactions repeat
