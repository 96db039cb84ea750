"""Outcome attribution, pixel difference (seed 002), dead-click guard with toggle exemption
(seed 000 §4.5), stalling warning (seed 004 F.2.4) and the per-domain click-tier memory."""

from __future__ import annotations

import io
from typing import Any

from PIL import Image

from workers.agent.protocols import Action, ToolResult
from workers.browser.act import click_memory
from workers.browser.act.click_memory import InMemoryClickMemory, tier_order
from workers.browser.act.repeats import DeadClickGuard, StallMonitor
from workers.browser.act.verify import (
    PageEvents,
    focus_ring,
    merge,
    outcome,
    pixel_difference,
)


def png(colour: int, box: tuple[int, int, int, int] | None = None, fill: int = 0) -> bytes:
    img = Image.new("L", (200, 100), colour)
    if box is not None:
        img.paste(fill, box)
    out = io.BytesIO()
    img.save(out, "PNG")
    return out.getvalue()


def test_ambient_only_summary_is_no_effect() -> None:
    out = outcome({"causal": 0, "late": 0, "ambient": 12, "children": ["Reply", "Forward"]})
    assert not out.effect
    assert out.children == ("Reply", "Forward")


def test_each_signal_is_an_effect() -> None:
    for summary in (
        {"causal": 1},
        {"late": 2},
        {"focusMoved": True},
        {"scrolled": True},
        {"modal": 1},
        {"stateChanged": True},
        {"valueChanged": True, "value": "x"},
        {"detached": True},
        {"url": True},
    ):
        assert outcome(summary).effect, summary
    assert outcome({}, PageEvents(dialogs=("alert 'hi'",))).effect
    assert outcome({}, PageEvents(popup=True)).effect
    assert outcome({}, PageEvents(downloads=1)).effect
    assert outcome({}, PageEvents(navigated=True)).url_changed
    assert outcome({}, requests=1).effect
    assert outcome(None).url_changed  # the frame went away: navigation


def test_pixels_decide_for_silent_widgets() -> None:
    assert not outcome({}, pixel_diff=0.009).effect
    assert outcome({}, pixel_diff=0.01).effect


def test_pixel_difference_256_gray() -> None:
    assert pixel_difference(png(255), png(255)) == 0.0
    half = pixel_difference(png(255), png(255, (0, 0, 100, 100), 0))
    assert abs(half - 0.5) < 0.02
    tiny = pixel_difference(png(255), png(255, (0, 0, 2, 2), 250))
    assert tiny < 0.01


def test_a_focus_ring_alone_is_no_pixel_change_but_its_inside_is() -> None:
    """Relay 2026-11-27 finding 2: a ring drawn around the focused button is no effect."""
    clip = {"x": 0.0, "y": 0.0, "width": 200.0, "height": 100.0}
    ring = focus_ring({"x": 60, "y": 30, "w": 80, "h": 40}, clip)
    ringed = png(255, (57, 27, 143, 73), 0)
    ringed_img = Image.open(io.BytesIO(ringed))
    ringed_img.paste(255, (62, 32, 138, 68))  # a 5 px band: outline outside, border inside
    out = io.BytesIO()
    ringed_img.save(out, "PNG")
    band = out.getvalue()
    assert pixel_difference(png(255), band, peak=True) > 0.5
    assert pixel_difference(png(255), band, peak=True, ring=ring) == 0.0
    inside = png(255, (90, 45, 110, 55), 0)  # a focused canvas redrawn inside its box
    assert pixel_difference(png(255), inside, peak=True, ring=ring) > 0.5


def test_evidence_mentions_toggle() -> None:
    out = outcome({"activeBefore": False, "activeAfter": True, "stateChanged": True})
    assert out.toggled and "now on" in out.evidence()


def test_dead_click_guard_refuses_second_silent_click() -> None:
    guard = DeadClickGuard()
    assert not guard.refuses("a", False)
    guard.record("a", 0, False)
    assert guard.refuses("a", False)
    assert not guard.refuses("b", False)  # another target


def test_dead_click_guard_toggle_exemption_and_reset() -> None:
    guard = DeadClickGuard()
    guard.record("filter", 0, True)  # un-applying a filter: no mutation, state flipped
    assert not guard.refuses("filter", False)
    guard.record("x", 3, False)  # a click that mutated is never dead
    assert not guard.refuses("x", False)
    guard.record("y", 0, False)
    guard.reset()
    assert not guard.refuses("y", False)


def test_stall_warning_after_identical_failures() -> None:
    monitor = StallMonitor()
    act = Action("click", {"ref": "1:2"})
    fail = ToolResult(success=False, error="no_effect", reason="nothing")
    assert "stalling" not in monitor.check(act, fail).data
    assert "stalling" not in monitor.check(act, fail).data
    third = monitor.check(act, fail)
    assert "same action failed 3 times" in third.data["stalling"]
    assert "Reconsider the strategy" in third.reason


def test_stall_warning_on_failure_rate() -> None:
    monitor = StallMonitor()
    ok = ToolResult(success=True)
    for i in range(4):
        res = monitor.check(
            Action("click", {"ref": f"1:{i}"}), ToolResult(success=False, error="e")
        )
        if i < 3:
            assert "stalling" not in res.data
    assert "4 of the last 4" in res.data["stalling"]
    assert monitor.check(Action("scroll"), ok) is ok


def test_click_memory_best_tier_and_bot_protection() -> None:
    mem = InMemoryClickMemory()
    assert tier_order(mem, "shop.test", allow_untrusted=False) == ("cdp", "playwright")
    assert tier_order(mem, "shop.test", allow_untrusted=True) == ("cdp", "playwright", "js")
    mem.record("shop.test", ("cdp", "playwright"), "playwright")
    mem.record("shop.test", ("cdp",), None)
    assert tier_order(mem, "shop.test", allow_untrusted=True) == ("playwright", "cdp", "js")
    mem.mark_bot_protected("shop.test")
    assert tier_order(mem, "shop.test", allow_untrusted=True) == ("playwright", "cdp")
    again = InMemoryClickMemory()
    again.load("shop.test", mem.export("shop.test"))
    assert again.export("shop.test") == mem.export("shop.test")
    assert again.best_tier("shop.test") == "playwright" and again.bot_protected("shop.test")


async def test_click_memory_persists_through_learnings() -> None:
    class Store:
        def __init__(self) -> None:
            self.rows: dict[tuple[str, str], Any] = {}

        async def load_domain_learnings(self, domain: str) -> dict[str, Any]:
            return {k: v for (d, k), v in self.rows.items() if d == domain}

        async def record_learning(self, domain: str, key: str, value: Any) -> None:
            self.rows[(domain, key)] = value

    store = Store()
    first = await click_memory.load(store, ["Shop.Test", ""])
    assert first.best_tier("shop.test") is None
    first.record("shop.test", ("cdp", "playwright"), "playwright")
    await click_memory.save(store, first)
    later = await click_memory.load(store, ["shop.test"])
    assert tier_order(later, "shop.test", allow_untrusted=False) == ("playwright", "cdp")


def test_guard_delta_counts_navigation_as_life() -> None:
    from workers.browser.act.click import _delta

    assert _delta(outcome({"causal": 0})) == 0
    assert _delta(outcome({"causal": 3})) == 3
    assert _delta(outcome({}, PageEvents(navigated=True))) == 1
    assert _delta(outcome({}, requests=2)) == 1
    assert _delta(outcome({"field": ["Tags:", "Aruba"]})) == 1
    assert _delta(outcome({"hidden": True})) == 1


def test_a_filled_field_or_a_closed_menu_is_the_effect_despite_ambient_mutations() -> None:
    """Relay run, use-autocomplete: the list's own changes were ambient (timer bursts)."""
    chosen = outcome(
        {"ambient": 7, "field": ["Tags:", "Aruba"], "hidden": True, "hiddenPopup": True}
    )
    assert chosen.effect
    assert "field 'Tags:' now 'Aruba'" in chosen.evidence()
    assert "its menu or list closed" in chosen.evidence()
    assert outcome({"ambient": 7, "hidden": True}).effect
    view = outcome({"causal": 2, "hidden": True}).evidence()  # not in a popup: a view changed
    assert "menu or list closed" not in view and "the view changed" in view
    assert not outcome({"ambient": 7, "field": None, "hidden": False}).effect
    top = merge({"causal": 0}, {"field": ["Tags:", "Aruba"]})
    assert outcome(top).field == ("Tags:", "Aruba")  # an iframe's click filled the parent
