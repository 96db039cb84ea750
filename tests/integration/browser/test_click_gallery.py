"""The hand on real Chromium: click cascade (seed 000 Alg. 5), snapper (Alg. 4), verification
(seed 002 / seed 004 App. F) and the dead-click guard on the click gallery pages. Every check
reads the page's own state (window counters set by its handlers), not only our reports."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

import pytest
from playwright.async_api import Page

from app.settings import Settings
from tests.support.sites import TestSite
from workers.agent.protocols import Action
from workers.browser.act.click import Hand, Target, TierFailed
from workers.browser.observe.snapshot import Node
from workers.browser.observe.vision import Rect, VisionBox
from workers.browser.session import PageSession

from .conftest import PAGES, _Quiet

pytestmark = pytest.mark.browser


@pytest.fixture
def settings(chromium_path: str) -> Settings:
    """Humanized: the gallery compares the humanized hand (`session`) with `plain` input."""
    return Settings(chromium_path=chromium_path, snapshot_max_tokens=1500, humanize=True)


@pytest.fixture(scope="module")
def second_port() -> Iterator[int]:
    """The same pages on another port, loaded as http://localhost:<port> (another origin)."""
    handler = functools.partial(_Quiet, directory=str(PAGES))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.fixture
async def plain(page: Page, settings: Settings) -> AsyncIterator[PageSession]:
    """A session without humanization (fast); `session` (conftest) humanizes."""
    s = await PageSession.open(page, settings.model_copy(update={"humanize": False}))
    yield s
    await s.close()


async def open_page(s: PageSession, port: int, name: str, query: str = "") -> None:
    result = await s.goto(f"http://127.0.0.1:{port}/gallery_click/{name}{query}")
    assert result.success, result.reason
    await s.page.wait_for_load_state("load")
    await s.observe()


def ref(s: PageSession, pred: Callable[[Node], bool]) -> str:
    assert s.last is not None
    found = [n.ref for n in s.last.nodes if n.interactive and pred(n)]
    assert found, s.last.text
    return found[0]


def named(name: str) -> Callable[[Node], bool]:
    return lambda n: n.name.strip() == name


async def js(s: PageSession, expr: str) -> Any:
    return await s.page.evaluate(expr)


async def box_of(s: PageSession, selector: str, frame_selector: str | None = None) -> Rect:
    """Viewport box of an element, as a vision model would report it."""
    loc = s.page.frame_locator(frame_selector).locator(selector) if frame_selector else None
    handle = await (loc.element_handle() if loc else s.page.locator(selector).element_handle())
    box = await handle.bounding_box()
    assert box is not None
    return Rect.xywh(box["x"], box["y"], box["width"], box["height"])


# ---------------------------------------------------------------- issue 7 class 2


async def test_dead_target_next_to_a_ticking_clock_is_no_effect(
    plain: PageSession, probe_port: int
) -> None:
    await open_page(plain, probe_port, "dead.html")
    ticks = await js(plain, "window.ticks")
    result = await plain.execute(Action("click", {"ref": ref(plain, named("Apply filter"))}))
    assert await js(plain, "window.ticks") > ticks  # the page timer mutated the DOM meanwhile
    assert await js(plain, "window.deadHits") >= 1  # the clicks did reach the element
    assert not result.success and result.error == "no_effect", result.reason
    assert "page timers ignored" in result.reason
    assert result.tried == ("cdp", "playwright"), result


async def test_merged_target_names_its_parts(plain: PageSession, probe_port: int) -> None:
    await open_page(plain, probe_port, "dead.html")
    merged = await plain.page.query_selector("#merged")  # one box around two controls
    assert merged is not None
    target = Target(merged, plain.page.main_frame)
    result = await plain.hand.click(plain.page, target, "click merged", plain.effect)
    assert await js(plain, "[window.replied, window.forwarded]") == [None, None]
    assert result.error == "no_effect", result.reason
    assert any("'Reply'" in a and "'Forward'" in a for a in result.alternatives)


async def test_live_click_still_succeeds_among_ticks(plain: PageSession, probe_port: int) -> None:
    await open_page(plain, probe_port, "dead.html")
    result = await plain.execute(Action("click", {"ref": ref(plain, named("Mark as read"))}))
    assert result.success, result.reason
    assert await js(plain, "[window.clicks, window.lastTrusted]") == [1, True]
    assert result.tried == ("cdp",) and result.data["tier"] == "cdp"


async def test_a_counter_each_click_updates_later_is_the_clicks_effect_every_time(
    plain: PageSession, probe_port: int
) -> None:
    """A counter that one click's timer updates a moment later changes once per click: those
    bursts follow input, so it must never be classed as an ambient ticker (that made the third
    click look dead, and the cascade click again)."""
    await open_page(plain, probe_port, "counter.html")
    save = {"ref": ref(plain, named("Save draft"))}
    for n in range(1, 5):
        result = await plain.execute(Action("click", save))
        assert result.success, (n, result.reason)
        assert result.tried == ("cdp",), (n, result)
        assert await js(plain, "[window.clicks, window.saves]") == [n, n]
        await plain.observe()


# ---------------------------------------------------------------- dead-click guard


async def test_dead_click_guard_refuses_the_second_silent_click(
    plain: PageSession, probe_port: int
) -> None:
    await open_page(plain, probe_port, "dead.html")
    dead = {"ref": ref(plain, named("Apply filter"))}
    first = await plain.execute(Action("click", dead))
    hits = await js(plain, "window.deadHits")
    assert first.error == "no_effect" and hits >= 1
    second = await plain.execute(Action("click", dead))
    assert second.error == "dead_click", second.reason
    assert "observe the page again" in second.alternatives[0]
    assert await js(plain, "window.deadHits") == hits  # refused: no click was sent
    third = await plain.execute(Action("click", dead))
    assert "stalling" in third.data  # seed 004 F.2.4: repeated failures warn


async def test_toggle_exemption(plain: PageSession, probe_port: int) -> None:
    await open_page(plain, probe_port, "dead.html")
    star = {"ref": ref(plain, lambda n: n.role == "checkbox")}
    on = await plain.execute(Action("click", star))
    assert on.success and "now on" in on.reason, on.reason
    off = await plain.execute(Action("click", star))  # no DOM mutation, but the state flipped
    assert off.success, off.reason
    assert await js(plain, "document.getElementById('star').checked") is False


# ---------------------------------------------------------------- cascade paths


async def test_disabled_and_ghost_buttons(plain: PageSession, probe_port: int) -> None:
    await open_page(plain, probe_port, "disabled.html")
    native = await plain.execute(Action("click", {"ref": ref(plain, named("Pay now"))}))
    assert native.error == "disabled" and native.tried == ("cdp",)
    ghost = await plain.execute(Action("click", {"ref": ref(plain, named("Place order"))}))
    assert ghost.error == "no_effect", ghost.reason
    assert await js(plain, "[window.ghostAttempts >= 1, window.orders]") == [True, 0]
    assert await js(plain, "window.nativeClicks") is None
    inert = await plain.execute(Action("click", {"ref": ref(plain, named("Compare"))}))
    assert inert.error == "selector_ambiguous", inert.reason  # only its card would be hit
    assert "div#card" in inert.reason
    assert await js(plain, "window.cardClicks") is None


async def test_covered_button_names_the_overlay(plain: PageSession, probe_port: int) -> None:
    await open_page(plain, probe_port, "overlay.html")
    buy = {"ref": ref(plain, named("Buy ticket"))}
    covered = await plain.execute(Action("click", buy))
    assert covered.error == "element_covered", covered.reason
    assert "div#overlay.cookie-wall" in covered.reason
    assert await js(plain, "window.bought") is None
    closed = await plain.execute(Action("click", {"ref": ref(plain, named("No thanks"))}))
    assert closed.success, closed.reason
    await plain.observe()
    bought = await plain.execute(Action("click", {"ref": ref(plain, named("Buy ticket"))}))
    assert bought.success, bought.reason
    assert await js(plain, "window.bought") == 1


async def test_own_label_over_a_shape_is_not_a_cover(plain: PageSession, probe_port: int) -> None:
    """Relay run, click-pie: the toggle circle's "+" is a sibling <text>/<tspan> drawn over it
    in the same <svg>; that label is the control's own, while another shape still covers."""
    await open_page(plain, probe_port, "labels.html")
    toggle = await plain.execute(Action("click", {"ref": ref(plain, named("Expand"))}))
    assert toggle.success, toggle.reason
    assert toggle.tried == ("cdp",) and await js(plain, "window.expanded") == 1
    covered = await plain.execute(Action("click", {"ref": ref(plain, named("Slice"))}))
    assert covered.error == "element_covered" and "rect#blocker" in covered.reason
    assert await js(plain, "window.sliced") is None


async def test_hits_on_the_targets_own_descendants_are_not_covers(
    plain: PageSession, probe_port: int
) -> None:
    """SVG <text> hit as its <tspan>, a button hit as its inner <svg>/<path> or <span>, and a
    shadow-DOM button hit as the light-DOM text slotted into it (flat-tree containment)."""
    await open_page(plain, probe_port, "labels.html")
    saved = await plain.execute(Action("click", {"ref": ref(plain, named("Save"))}))
    assert saved.success and saved.tried == ("cdp",), saved.reason
    bought = await plain.execute(Action("click", {"ref": ref(plain, named("Buy now"))}))
    assert bought.success and bought.tried == ("cdp",), bought.reason
    for selector in ("#item", "#icon"):
        el = await plain.page.query_selector(selector)
        assert el is not None
        target = Target(el, plain.page.main_frame)
        done = await plain.hand.click(plain.page, target, selector, plain.effect)
        assert done.success and done.tried == ("cdp",), done.reason
    hits = "[window.itemHits, window.iconHits, window.spannedHits, window.fancyHits]"
    assert await js(plain, hits) == [1, 1, 1, 1]


@pytest.mark.parametrize("mode", ["hide", "remove", "stay"])
async def test_choosing_a_suggestion_is_an_effect(
    plain: PageSession, probe_port: int, mode: str
) -> None:
    """Relay run, use-autocomplete: the suggestion list changes only in timer bursts (ambient),
    so its closing is not counted; the field's new value, the menu hiding or the item's
    removal is the click's effect, and the click is sent once."""
    await open_page(plain, probe_port, "autocomplete.html", f"?mode={mode}")
    typed = await plain.execute(Action("type", {"ref": ref(plain, named("Tags:")), "text": "Ar"}))
    assert typed.success, typed.reason
    await plain.page.wait_for_selector("#menu li:text('Aruba')", state="visible")
    await plain.observe()
    chosen = await plain.execute(Action("click", {"ref": ref(plain, named("Aruba"))}))
    assert chosen.success, chosen.reason
    assert chosen.tried == ("cdp",)
    assert await js(plain, "[window.chosen, document.getElementById('tags').value]") == [
        "Aruba",
        "Aruba",
    ]


async def test_falls_through_tiers_and_remembers_the_best(
    plain: PageSession, probe_port: int
) -> None:
    async def broken(hand: Hand, page: Page, t: Target) -> Any:
        raise TierFailed("not_visible", "forced failure")

    plain.hand.tiers = {**plain.hand.tiers, "cdp": broken}
    await open_page(plain, probe_port, "dead.html")
    live = {"ref": ref(plain, named("Mark as read"))}
    first = await plain.execute(Action("click", live))
    assert first.success and first.tried == ("cdp", "playwright"), first.reason
    assert await js(plain, "[window.clicks, window.lastTrusted]") == [1, True]
    second = await plain.execute(Action("click", live))
    assert second.tried == ("playwright",)  # this domain now starts at its best tier
    assert await js(plain, "window.clicks") == 2


async def test_scripted_tier_only_when_allowed_and_not_bot_protected(
    page: Page, settings: Settings, probe_port: int
) -> None:
    async def broken(hand: Hand, page: Page, t: Target) -> Any:
        raise TierFailed("not_visible", "forced failure")

    cfg = settings.model_copy(update={"humanize": False, "click_allow_untrusted": True})
    s = await PageSession.open(page, cfg)
    s.hand.tiers = {**s.hand.tiers, "cdp": broken, "playwright": broken}
    await open_page(s, probe_port, "dead.html")
    live = {"ref": ref(s, named("Mark as read"))}
    result = await s.execute(Action("click", live))
    assert result.success and result.tried == ("cdp", "playwright", "js"), result.reason
    assert await js(s, "[window.clicks, window.lastTrusted]") == [1, False]
    s.hand.memory.mark_bot_protected("127.0.0.1")  # type: ignore[attr-defined]
    refused = await s.execute(Action("click", live))
    assert not refused.success and "js" not in refused.tried
    assert await js(s, "window.clicks") == 1


async def test_humanized_click_sweeps_the_cursor(
    session: PageSession, plain: PageSession, probe_port: int
) -> None:
    for s, humane in ((session, True), (plain, False)):
        await open_page(s, probe_port, "dead.html")
        result = await s.execute(Action("click", {"ref": ref(s, named("Mark as read"))}))
        assert result.success, result.reason
        moves = await js(s, "window.moves")
        assert (moves >= 12) if humane else (moves <= 2), (humane, moves)


# ---------------------------------------------------------------- widgets


async def test_chevron_row_snaps_to_the_expand_control(
    session: PageSession, probe_port: int
) -> None:
    await open_page(session, probe_port, "chevron.html")
    row = await box_of(session, "#us")
    result = await session.hand.click_at(
        session.page, row, "United States", "click_at", session.effect, {}
    )
    assert result.success, result.reason
    assert "phase B" in result.reason
    assert await js(session, "window.expanded") == 1


async def test_click_at_a_vision_index_goes_through_the_snapper(
    plain: PageSession, probe_port: int
) -> None:
    await open_page(plain, probe_port, "chevron.html")
    plain.vision_boxes = (VisionBox(1, "United States", await box_of(plain, "#us")),)
    missing = await plain.execute(Action("click_at", {"index": 7}))
    assert missing.error == "no_vision_index"
    result = await plain.execute(Action("click_at", {"index": 1}))
    assert result.success and "phase B" in result.reason, result.reason
    assert await js(plain, "window.expanded") == 1


async def test_date_picker_24px_cells(session: PageSession, probe_port: int) -> None:
    await open_page(session, probe_port, "datepicker.html")
    result = await session.execute(Action("click", {"ref": ref(session, named("15"))}))
    assert result.success, result.reason
    assert await js(session, "window.picked") == "2026-11-15"
    a, b = (
        await box_of(session, "tr:nth-child(3) td:nth-child(2)"),
        await box_of(session, "tr:nth-child(3) td:nth-child(4)"),
    )
    week = Rect(a.x0, a.y0, b.x1, b.y1)  # cells 16-18, labelled "17"
    picked = await session.hand.click_at(session.page, week, "17", "click_at", session.effect, {})
    assert picked.success, picked.reason
    assert await js(session, "window.picked") == "2026-11-17"


async def test_canvas_button_by_point_verified_by_pixels(
    plain: PageSession, probe_port: int
) -> None:
    await open_page(plain, probe_port, "canvas.html")
    canvas = await box_of(plain, "#game")
    miss = await plain.execute(Action("click_at", {"x": canvas.x0 + 250, "y": canvas.y0 + 120}))
    # the canvas's handler took the click and drew nothing: it answered, it is not dead
    # (issue 27 item 2: a game move that leaves the page as it was is no dead end)
    assert miss.error == "no_change", miss.reason
    assert await js(plain, "[window.canvasMisses >= 1, window.canvasClicks]") == [True, 0]
    hit = await plain.execute(Action("click_at", {"x": canvas.x0 + 100, "y": canvas.y0 + 65}))
    assert hit.success and "pixels changed" in hit.reason, hit.reason
    assert await js(plain, "window.canvasClicks") == 1


async def test_hover_menu(session: PageSession, probe_port: int) -> None:
    await open_page(session, probe_port, "hover.html")
    hovered = await session.execute(Action("hover", {"ref": ref(session, named("Products"))}))
    assert hovered.success, hovered.reason
    await session.observe()
    result = await session.execute(Action("click", {"ref": ref(session, named("Laptops"))}))
    assert result.success, result.reason
    assert await js(session, "window.chosen") == "Laptops"


async def _frames_page(s: PageSession, port: int, xport: int) -> None:
    await open_page(s, port, "frames.html", f"?xport={xport}")
    for frame in s.page.frames:
        await frame.wait_for_load_state("load")
    await s.page.wait_for_function("document.getElementById('cross').contentWindow !== null")
    s.invalidate()
    await s.observe()


async def test_cross_origin_iframe_button(
    session: PageSession, probe_port: int, second_port: int
) -> None:
    await _frames_page(session, probe_port, second_port)
    result = await session.execute(Action("click", {"ref": ref(session, named("Accept offer"))}))
    assert result.success, result.reason
    await session.page.wait_for_function("window.innerClicked === 1")
    box = await box_of(session, "#accept", "#cross")
    again = await session.hand.click_at(
        session.page, box, "Accept offer", "click_at", session.effect, {}
    )
    assert again.success and "A-alt" in again.reason, again.reason
    await session.page.wait_for_function("window.innerClicked === 2")


async def test_same_origin_iframe_input_by_descent(
    session: PageSession, probe_port: int, second_port: int
) -> None:
    await _frames_page(session, probe_port, second_port)
    box = await box_of(session, "#email", "#same")
    result = await session.hand.click_at(session.page, box, "Email", "click_at", session.effect, {})
    assert result.success and "phase A-alt" in result.reason, result.reason
    focused = await session.page.evaluate(
        "document.getElementById('same').contentDocument.activeElement.id"
    )
    assert focused == "email"


async def test_typing_is_humanized_per_character_or_filled(
    session: PageSession, plain: PageSession, probe_port: int
) -> None:
    """§6.4: humanized typing sends a key per character after clearing; plain fills."""
    text = "hiking boots"
    for s, humane in ((session, True), (plain, False)):
        await open_page(s, probe_port, "type.html")
        field = {"ref": ref(s, lambda n: n.role == "textbox"), "text": text}
        result = await s.execute(Action("type", field))
        assert result.success, result.reason
        assert await js(s, "document.getElementById('q').value") == text
        typed = [k for k in await js(s, "window.names || []") if len(k) == 1]
        assert typed == (list(text) if humane else [])


async def test_a_slow_navigation_is_an_effect_not_a_reason_to_click_again(
    plain: PageSession, probe_port: int, test_site: TestSite
) -> None:
    """The server answers after the tier's wait: the requested navigation counts, so the
    cascade does not fall through to a second click (one request reaches the server)."""
    slow = test_site.url("/slow?ms=2500")
    await open_page(plain, probe_port, "slowlink.html", f"?to={slow}")
    result = await plain.execute(
        Action("click", {"ref": ref(plain, named("Open the yearly report"))})
    )
    assert result.success and result.tried == ("cdp",), result.reason
    await plain.page.wait_for_url("**/slow?ms=2500")
    assert test_site.paths.count("/slow?ms=2500") == 1
