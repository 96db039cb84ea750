"""Observation fidelity, wave 5 (issues 26 and 27, relay run findings 4-7, 9, 11 in
docs/benchmarks.md): each page under pages/fidelity5/ (and fidelity3/timer.html) reproduces
one thing a capable model could not see or tell apart in the page text."""

from __future__ import annotations

import re

import pytest

from tests.integration.browser.fidelity_support import Opener
from tests.integration.browser.fidelity_support import line as _line
from tests.integration.browser.fidelity_support import lines as _lines
from tests.integration.browser.fidelity_support import ref as _ref
from workers.agent.protocols import Action

pytestmark = [pytest.mark.browser]


@pytest.fixture
def open_page(open_fidelity_page: Opener) -> Opener:
    return open_fidelity_page


async def test_check_state_reads_checked_or_unchecked_never_the_value(open_page: Opener) -> None:
    """Item 1: an unchecked box read as `[checkbox: on]` (its value attribute) read as ticked."""
    session, _ = await open_page("fidelity5/checks")
    await session.observe()
    read = await session.execute(Action("read_text", {}))
    assert read.success, read.reason
    body = str(read.data.get("text") or read.reason) if read.data else read.reason
    assert "[checkbox: on]" not in body, body
    assert "[checkbox: unchecked] Apples" in body, body
    assert "[checkbox: checked] Pears" in body, body
    assert "[radio: unchecked] Yes" in body and "[radio: checked] No" in body, body
    found = await session.execute(Action("dom_search", {"selector": "input[type=checkbox]"}))
    assert found.success, found.reason
    assert "'on'" not in found.reason and '"on"' not in found.reason, found.reason
    assert "unchecked" in found.reason, found.reason


async def test_select_result_names_the_chosen_option(open_page: Opener) -> None:
    """Item 5: a select's result names the chosen option, not all option texts together."""
    session, _ = await open_page("fidelity5/checks")
    text = (await session.observe()).text
    box = _line(text, 'combobox "Size"')
    assert 'value="Medium"' in box and "Small | Medium | Large | Huge" in box, box
    done = await session.execute(Action("select_option", {"ref": _ref(box), "values": ["Large"]}))
    assert done.success, done.reason
    assert "'Large'" in done.reason or '"Large"' in done.reason, done.reason
    assert "SmallMediumLarge" not in done.reason.replace(" ", ""), done.reason


async def test_events_over_a_time_grid_carry_their_rows_and_no_row_is_lost(
    open_page: Opener,
) -> None:
    """Item 2: rows scrolled out of a scroll box stay (as out of view), and event blocks
    laid over the rows say which rows they sit on."""
    session, _ = await open_page("fidelity5/calendar")
    text = (await session.observe()).text
    for hour in ("12am", "3am", "7am", "8am", "11pm"):
        assert _lines(text, f'"{hour}"') or _lines(text, hour), f"{hour} lost:\n{text}"
    party = _line(text, "Party")
    assert '"9am"' in party, party
    meeting = _line(text, "Meeting")
    assert '"2pm"' in meeting and '"3pm"' in meeting, meeting


async def test_a_small_scrolled_page_shown_whole_marks_the_viewport(open_page: Opener) -> None:
    """Item 2 / finding 9: a page shown whole while it reports a scrolled viewport says where
    the viewport starts."""
    session, page = await open_page("fidelity3/small")
    await page.evaluate("window.scrollTo(0, document.body.scrollHeight)")
    text = (await session.observe()).text
    header = _line(text, "[viewport shows")
    assert not header.startswith("[viewport shows 0-"), header
    assert "[above viewport" in text, text


async def test_a_scroll_box_inside_a_clickable_card_has_its_own_ref(open_page: Opener) -> None:
    """Item 3: scroll_within needs a ref for the scroll box inside a clickable card."""
    session, page = await open_page("fidelity5/scrollcard")
    text = (await session.observe()).text
    boxes = [ln for ln in text.splitlines() if ln.startswith("[") and "scrollable" in ln]
    assert boxes, text
    done = await session.execute(Action("scroll_within", {"ref": _ref(boxes[0])}))
    assert done.success, done.reason
    assert await page.evaluate("document.getElementById('terms').scrollTop") > 0


async def test_same_named_controls_in_a_grid_carry_positions_and_labels_name_one(
    open_page: Opener,
) -> None:
    """Item 4: 25 `button "circle"` say where they are; a label names only its own field."""
    session, page = await open_page("fidelity5/grid")
    text = (await session.observe()).text
    circles = _lines(text, 'button "circle"')
    assert len(circles) == 25, text
    spots = {re.search(r"row \d+ col \d+", ln).group(0) for ln in circles if "row " in ln}  # type: ignore[union-attr]
    assert len(spots) == 25, circles
    # column 4, row 5 is the point (1,-2) of the axes
    target = next(ln for ln in circles if "row 5 col 4" in ln)
    assert "x 1" in target or "(1," in target or '"1"' in target, target
    done = await session.execute(Action("click", {"ref": _ref(target)}))
    assert done.success, done.reason
    assert await page.locator("#log").text_content() == "clicked 1,-2"
    assert len(_lines(text, 'textbox "to"')) == 1, text


async def test_a_label_sentence_names_at_most_one_field(open_page: Opener) -> None:
    session, _ = await open_page("fidelity5/example")
    text = (await session.observe()).text
    assert len(_lines(text, 'checkbox "Draw the number')) <= 1, text


async def test_an_example_picture_without_alt_text_is_in_the_text(open_page: Opener) -> None:
    """Item 6: "using the example on the right": the example is an image without alt text;
    the text says there is a picture there and what its file is called."""
    session, _ = await open_page("fidelity5/example")
    text = (await session.observe()).text
    pic = _line(text, "[image")
    assert "digit seven" in pic, pic


async def test_a_click_no_page_element_listens_to_says_so(open_page: Opener) -> None:
    """Item 7 (timer.html): the click on "Second" had no effect and nothing said why."""
    session, _ = await open_page("fidelity3/timer")
    text = (await session.observe()).text
    done = await session.execute(Action("click", {"ref": _ref(_line(text, '"Second"'))}))
    assert not done.success
    assert "no click handler" in done.reason, done.reason
