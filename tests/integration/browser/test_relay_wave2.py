"""What misled a real model in the wave-2 relay run (docs/benchmarks.md), browser side, on
local pages: wait_for and dom_search around a late suggestion list next to an invisible copy
of the same text, text in a collapsed section, native date inputs, key presses on a slider."""

from __future__ import annotations

import pytest
from playwright.async_api import Page

from workers.agent.protocols import Action
from workers.browser.session import PageSession

pytestmark = pytest.mark.browser


async def _open(session: PageSession, probe_port: int, name: str) -> None:
    assert (await session.goto(f"http://127.0.0.1:{probe_port}/relay2/{name}")).success
    await session.observe()


async def _ref_of(session: PageSession, line_part: str) -> str:
    obs = await session.observe()
    line = next(x for x in obs.text.splitlines() if line_part in x)
    return line.split("[", 1)[1].split("]", 1)[0]


async def test_wait_for_sees_late_visible_text_despite_an_invisible_copy(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "flight.html")
    field = await _ref_of(session, 'textbox "From:"')
    typed = await session.execute(Action("type", {"ref": field, "text": "Anv"}))
    assert typed.success and "suggestions appeared" in typed.reason, typed.reason
    assert 'Anvik, AK (ANV)"' in (await session.observe()).text  # no step late
    waited = await session.execute(Action("wait_for", {"text": "Anvik, AK", "timeout_s": 5}))
    assert waited.success, waited.reason
    assert await page.locator("li", has_text="Anvik, AK (ANV)").is_visible()
    missing = await session.execute(Action("wait_for", {"text": "Nome, AK", "timeout_s": 0.5}))
    assert missing.error == "condition_not_met"  # not "timeout": no network dead end


async def test_dom_search_names_the_ref_of_a_late_suggestion(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "flight.html")
    field = await _ref_of(session, 'textbox "From:"')
    assert (await session.execute(Action("type", {"ref": field, "text": "Min"}))).success
    await page.locator("li", has_text="Minot, ND (MOT)").wait_for(state="visible")
    found = await session.execute(Action("dom_search", {"query": "(MOT)"}))
    assert found.success, found.reason
    ref = found.data["hits"][0]["ref"]
    assert ref is not None, found.reason
    clicked = await session.execute(Action("click", {"ref": ref}))
    assert clicked.success, clicked.reason
    assert await page.locator("#chosen").inner_text() == "Minot, ND (MOT)"


async def test_dom_search_on_collapsed_text_says_hidden_and_names_the_opener(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "flight.html")
    found = await session.execute(Action("dom_search", {"query": "aliquet"}))
    assert not found.success and found.error == "not_visible", found.reason
    assert "hidden" in found.reason and "'Section #1'" in found.reason
    opener = found.data["hidden"][0]["opener"]
    assert opener["text"] == "Section #1" and opener["ref"]
    assert (await session.execute(Action("click", {"ref": opener["ref"]}))).success
    shown = await session.execute(Action("dom_search", {"query": "aliquet"}))
    assert shown.success and "Nulla aliquet dolor." in shown.reason
    nothing = await session.execute(Action("dom_search", {"query": "zebra crossing"}))
    assert nothing.error == "text_not_found"


async def test_a_date_typed_in_the_users_form_fills_a_native_date_input(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "fields.html")
    date = await _ref_of(session, 'date "Date"')
    typed = await session.execute(Action("type", {"ref": date, "text": "05/20/2010"}))
    assert typed.success, typed.reason
    assert await page.locator("#when").input_value() == "2010-05-20"
    clock = await _ref_of(session, 'time "Time"')
    typed = await session.execute(Action("type", {"ref": clock, "text": "3:45 PM"}))
    assert typed.success, typed.reason
    assert await page.locator("#at").input_value() == "15:45"
    qty = await _ref_of(session, 'spinbutton "Quantity"')
    typed = await session.execute(Action("type", {"ref": qty, "text": "1,000"}))
    assert typed.success, typed.reason  # keys drop the comma; 1000 is the same number
    assert await page.locator("#qty").input_value() == "1000"
    note = await _ref_of(session, 'textbox "Note"')
    cut = await session.execute(Action("type", {"ref": note, "text": "abcdef"}))
    assert cut.error == "value_mismatch"  # a real difference still fails


async def test_press_key_reports_what_it_did_to_the_focused_element(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "fields.html")
    await page.focus("#slider")
    pressed = await session.execute(Action("press_key", {"key": "ArrowLeft"}))
    assert pressed.success, pressed.reason
    assert "the focused slider: value '-97' -> '-98'" in pressed.reason, pressed.reason
    await page.focus("#handle")
    moved = await session.execute(Action("press_key", {"key": "ArrowRight"}))
    assert "moved by (+10, +0) px" in moved.reason, moved.reason
    assert await page.locator("#level").inner_text() == "51"


async def test_a_click_that_changes_the_view_is_not_reported_as_a_closed_menu(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "inbox.html")
    item = await _ref_of(session, 'button "Archive"')
    archived = await session.execute(Action("click", {"ref": item}))
    assert "its menu or list closed" in archived.reason, archived.reason
    row = await _ref_of(session, 'button "Alice - Lunch on Friday?"')
    opened = await session.execute(Action("click", {"ref": row}))
    assert opened.success and await page.locator("#subject").is_visible()
    assert "menu or list closed" not in opened.reason, opened.reason
    assert "the view changed" in opened.reason, opened.reason
