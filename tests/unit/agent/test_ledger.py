"""Ledger slots (seed 000 §5.2), checklist rules (seed 004 §3.2) and persistence round trip."""

from __future__ import annotations

import json

from workers.agent.memory.ledger import (
    FALLBACK_CHECKLIST,
    DeadEnd,
    Ledger,
    StepOutcome,
    domain_of,
    refine_checklist,
)


def test_recent_keeps_three_and_archives_older_steps() -> None:
    ledger = Ledger("goal")
    dropped = [ledger.record_step(StepOutcome(step, f"http://a/{step}")) for step in range(1, 6)]
    assert [s.step for s in ledger.recent] == [3, 4, 5]
    assert [s.step for s in ledger.archive] == [1, 2]
    assert [d.step if d else None for d in dropped] == [None, None, None, 1, 2]
    assert [s.step for s in ledger.all_steps] == [1, 2, 3, 4, 5]


def test_facts_render_most_recently_referenced_first() -> None:
    ledger = Ledger("goal")
    ledger.record_fact("price", "$32", category="observation", step=1)
    ledger.record_fact("budget", "under $40", category="constraint", step=2)
    assert [f.key for f in ledger.facts_by_recency()] == ["budget", "price"]
    ledger.reference_fact("price")
    assert [f.key for f in ledger.facts_by_recency()] == ["price", "budget"]
    assert ledger.record_fact("x", "y", category="nonsense").category == "observation"


def test_dead_ends_dedupe_and_scope_to_url() -> None:
    ledger = Ledger("goal")
    first = ledger.mark_dead_end(
        "click Buy -> failed", "http://shop/a", "stale_selector", step=2, signature="click:buy"
    )
    again = ledger.mark_dead_end(
        "click Buy again", "http://shop/a/", "generic", signature="click:buy"
    )
    other = ledger.mark_dead_end("blocked", "http://shop/b", "bogus")
    assert first is not None and again is None
    assert other is not None and other.cause == "generic"
    assert ledger.dead_ends_for("http://shop/a#top") == [first]
    assert ledger.is_dead_end("http://shop/a", "click:buy")
    assert not ledger.is_dead_end("http://shop/b", "click:buy")
    assert first.domain == "shop" and domain_of("https://Example.COM./x") == "example.com"


def test_checklist_refinement_and_single_item_update() -> None:
    items = refine_checklist(
        ["Open the cart; Pay for the order", "open the cart", " - " + "w " * 20]
    )
    assert items[:2] == ["Open the cart", "Pay for the order"]
    assert len(items) == 3 and len(items[2].split()) == 10
    assert refine_checklist(["only one"]) == list(FALLBACK_CHECKLIST)
    assert len(refine_checklist([f"item {i}" for i in range(9)])) == 6
    ledger = Ledger("goal")
    ledger.set_checklist(["a thing", "b thing"])
    assert ledger.update_checklist_item(1, "completed") is not None
    assert [i.status for i in ledger.checklist] == ["completed", "pending"]
    assert ledger.update_checklist_item(2, "bogus") is None
    assert not ledger.checklist_done()
    ledger.update_checklist_item(2, "completed")
    assert ledger.checklist_done()


def test_journal_records_every_mutation_once() -> None:
    ledger = Ledger("goal")
    ledger.record_step(StepOutcome(1, "http://a"))
    ledger.record_fact("k", "v")
    ledger.mark_dead_end("d", "http://a")
    ledger.note("n", 1)
    assert [c.kind for c in ledger.drain()] == ["step", "fact", "dead_end", "episodic"]
    assert ledger.drain() == []
    ledger.load_dead_ends([DeadEnd("old", "http://b", "network")])
    assert ledger.drain() == []  # remembered from an earlier run, not a new finding
    assert len(ledger.dead_ends) == 1 and len(ledger.remembered) == 1


def test_round_trip_through_json() -> None:
    ledger = Ledger("book a room")
    ledger.set_plan(["search", "pick"], "search")
    ledger.set_checklist(["room chosen", "booking confirmed"])
    for step in range(1, 5):
        ledger.record_step(
            StepOutcome(step, "http://a", (f"click(ref=1:{step}) -> ok",), memory="m")
        )
    ledger.record_fact("a", "1")
    ledger.record_fact("b", "2")
    ledger.reference_fact("a")
    ledger.mark_dead_end("x", "http://a", "network", signature="s")
    ledger.add_checkpoint("navigation", "opened", "http://a", 1)
    ledger.note("archived 4 messages", 4, "archive")
    ledger.summary = "so far"
    restored = Ledger.from_dict(json.loads(json.dumps(ledger.to_dict())))
    assert restored.to_dict() == ledger.to_dict()
    assert restored.semantic_size() == ledger.semantic_size() == 4 + 2 + 1 + 1 + 1
    restored.record_fact("c", "3")
    assert restored.facts_by_recency()[0].key == "c"
