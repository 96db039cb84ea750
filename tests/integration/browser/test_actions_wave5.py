"""Action tools the relay run after fidelity wave 3 asked for (docs/benchmarks.md, "Relay run
after fidelity wave 3 (issue 26)", findings 3, 6 and 10), each on a local page under
pages/actions/."""

from __future__ import annotations

import pytest
from playwright.async_api import Page

from tests.integration.browser.test_relay_wave2 import _ref_of
from workers.agent.protocols import Action
from workers.browser.session import PageSession

pytestmark = pytest.mark.browser


async def _open(session: PageSession, probe_port: int, name: str) -> None:
    assert (await session.goto(f"http://127.0.0.1:{probe_port}/actions/{name}")).success
    await session.observe()


# -- finding 10: select words without a pixel drag ---------------------------------------


async def test_select_text_selects_the_words_across_markup_and_fires_the_events(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "select.html")
    done = await session.execute(Action("select_text", {"text": "quick brown fox"}))
    assert done.success, done.reason
    assert "'quick brown fox'" in done.reason, done.reason
    assert await page.evaluate("String(getSelection())") == "quick brown fox"
    assert await page.locator("#sel").text_content() == "quick brown fox"  # selectionchange
    assert await page.locator("#up").text_content() == "quick brown fox"  # mouseup


async def test_select_text_picks_an_occurrence_and_collapses_spaces(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "select.html")
    done = await session.execute(
        Action("select_text", {"text": "quick brown fox", "occurrence": 2})
    )
    assert done.success, done.reason
    # the second one is written "quick   brown fox" on a new line: it is the one selected
    assert "sleeps" in await page.evaluate(
        "getSelection().focusNode.textContent.slice(getSelection().focusOffset)"
    )
    missing = await session.execute(Action("select_text", {"text": "lazy cat", "occurrence": 1}))
    assert not missing.success and missing.error == "text_not_found", missing.reason
    assert "0 times" in missing.reason, missing.reason


async def test_select_text_inside_a_textarea_uses_its_selection_range(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "select.html")
    notes = await _ref_of(session, 'textbox "Notes"')
    done = await session.execute(
        Action("select_text", {"ref": notes, "text": "beta", "occurrence": 2})
    )
    assert done.success, done.reason
    assert await page.locator("#fieldsel").text_content() == "beta @17"


# -- finding 3: a spinbutton that refuses typed text takes arrow keys ---------------------


async def test_typing_into_a_spinner_that_refuses_text_steps_it_with_arrow_keys(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "spinner.html")
    spin = await _ref_of(session, 'spinbutton "Select a value:"')
    typed = await session.execute(Action("type", {"ref": spin, "text": "-10"}))
    assert typed.success, typed.reason
    assert "ArrowDown x10" in typed.reason, typed.reason
    assert await page.locator("#spinval").text_content() == "-10"


async def test_a_number_field_is_stepped_by_its_step_and_bounds_are_said(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "spinner.html")
    qty = await _ref_of(session, 'spinbutton "Quantity"')
    typed = await session.execute(Action("type", {"ref": qty, "text": "35"}))
    assert typed.success, typed.reason
    assert "ArrowUp x5" in typed.reason, typed.reason
    assert await page.locator("#qtyval").text_content() == "35"
    over = await session.execute(Action("type", {"ref": qty, "text": "70"}))
    assert not over.success and over.error == "value_mismatch", over.reason
    assert "at most 50" in over.reason, over.reason


# -- finding 6: a click that only selects, on an element that listens for double click ----


async def test_a_click_on_a_double_click_slot_offers_the_double_click(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "calendar.html")
    slot = await _ref_of(session, 'button "2pm"')
    once = await session.execute(Action("click", {"ref": slot}))
    assert once.success, once.reason
    assert "double click" in once.reason, once.reason
    assert once.alternatives[0] == f"click(ref={slot}, count=2)", once.alternatives
    assert not await page.locator("#editor").is_visible()
    slot = await _ref_of(session, 'button "2pm"')
    twice = await session.execute(Action("click", {"ref": slot, "count": 2}))
    assert twice.success, twice.reason
    assert "double click" not in twice.reason, twice.reason
    assert await page.locator("#editor").is_visible()
    assert await page.locator("#when").text_content() == "2pm"


async def test_a_click_on_a_button_without_a_double_click_listener_offers_none(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "calendar.html")
    star = await _ref_of(session, 'button "Star"')
    once = await session.execute(Action("click", {"ref": star}))
    assert once.success, once.reason
    assert "double click" not in once.reason, once.reason
