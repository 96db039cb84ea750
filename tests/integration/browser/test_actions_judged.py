"""Action results judged by what happened (docs/benchmarks.md, "Relay run on local challenge
pages (issue 26 classes 1-14), 2026-11-27", findings 1, 2, 5 and 11), on local pages."""

from __future__ import annotations

import pytest
from playwright.async_api import Page

from tests.integration.browser.test_relay_wave2 import _ref_of
from workers.agent.protocols import Action
from workers.browser.session import PageSession

pytestmark = pytest.mark.browser


async def _open(session: PageSession, probe_port: int, path: str) -> None:
    assert (await session.goto(f"http://127.0.0.1:{probe_port}/{path}")).success
    await session.observe()


# -- finding 1: a click whose effect came from the pointer's arrival --------------------


async def test_a_click_that_opens_a_hover_menu_is_not_a_dead_end(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "actions/menu.html")
    more = await _ref_of(session, 'button "More"')
    done = await session.execute(Action("click", {"ref": more}))
    assert done.success, done.reason
    assert done.error != "no_effect", done.reason
    assert "no visible effect" not in done.reason, done.reason
    obs = await session.observe()
    assert 'button "Export"' in obs.text, obs.text


# -- finding 2: no success for pixels that are only the focus ring ----------------------


async def test_enter_on_a_button_with_no_handler_is_not_done_by_its_focus_ring(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "fidelity3/options.html")
    plus = await _ref_of(session, 'button "+"')
    clicked = await session.execute(Action("click", {"ref": plus}))  # focused by the mouse
    assert clicked.error == "no_effect", clicked.reason
    await session.observe()
    pressed = await session.execute(Action("press_key", {"key": "Enter"}))
    assert "pixels changed" not in pressed.reason, pressed.reason
    assert not pressed.success and pressed.error == "no_effect", pressed.reason


async def test_typing_into_a_custom_slider_says_the_text_went_nowhere(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "fidelity/slider.html")
    obs = await session.observe()
    line = next(x for x in obs.text.splitlines() if "slider" in x and "75" in x)
    ref = line.split("[", 1)[1].split("]", 1)[0]
    typed = await session.execute(Action("type", {"ref": ref, "text": "25"}))
    assert not typed.success, typed.reason
    assert typed.error in {"not_editable", "no_effect"}, typed.reason
    assert "75" in await page.locator(".ui-slider-handle").nth(1).get_attribute("style")  # type: ignore[operator]


async def test_drag_from_a_point_with_nothing_moved_is_no_effect(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "fidelity/slider.html")
    dragged = await session.execute(
        Action("drag", {"from_x": 400, "from_y": 300, "x": 300, "y": 320})
    )
    assert not dragged.success and dragged.error == "no_effect", dragged.reason


async def test_pointer_and_drag_judge_a_text_selection_alike(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "actions/drag_text.html")
    card = page.locator("#card")
    zone = page.locator("#zone")
    a, b = await card.bounding_box(), await zone.bounding_box()
    assert a and b
    start = [a["x"] + 30, a["y"] + a["height"] / 2]
    end = [b["x"] + 40, b["y"] + b["height"] / 2]
    pointed = await session.execute(Action("pointer", {"points": [start, end], "press": True}))
    await page.evaluate("getSelection().removeAllRanges()")
    await session.observe()
    dragged = await session.execute(
        Action("drag", {"from_x": start[0], "from_y": start[1], "x": end[0], "y": end[1]})
    )
    assert (pointed.success, pointed.error) == (dragged.success, dragged.error), (
        pointed.reason,
        dragged.reason,
    )
    assert not pointed.success and pointed.error == "no_effect", pointed.reason


async def test_enter_on_a_tab_already_at_its_hash_is_not_a_page_change(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "fidelity/tabs.html")
    reviews = await _ref_of(session, '"Reviews"')
    clicked = await session.execute(Action("click", {"ref": reviews}))
    assert page.url.endswith("#t2"), (page.url, clicked.reason)
    await session.observe()
    pressed = await session.execute(Action("press_key", {"key": "Enter"}))
    assert not pressed.page_changed, pressed.reason


# -- finding 5: screenshot names `look` only when it is offered ------------------------


async def test_screenshot_without_vision_does_not_send_the_model_to_look(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "fidelity/tabs.html")
    assert session.look_llm is None
    shot = await session.execute(Action("screenshot", {}))
    assert shot.success, shot.reason
    assert "look" not in shot.reason, shot.reason


# -- finding 11: a selector that matches nothing is said in terms of selectors ------------


async def test_a_selector_search_with_no_match_says_no_element_matches(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "fidelity/tabs.html")
    for args in ({"selector": "svg, canvas, table td"}, {"query": "svg, canvas, table td"}):
        found = await session.execute(Action("dom_search", args))
        assert not found.success, found.reason
        assert found.error == "no_selector_match", found.reason
        assert "selector" in found.reason, found.reason
    words = await session.execute(Action("dom_search", {"query": "Return policy"}))
    assert words.error == "text_not_found", words.reason
