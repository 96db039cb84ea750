"""Observation fidelity, wave 5b (relay run of 2026-11-27, findings 4, 8, 9 and the
`[above viewport]` line left undone by wave 5, docs/benchmarks.md): elements with no text or
name, names run together from several children, the icon marker on named controls, and the
viewport's edge inside an inner scroll box. Pages under pages/fidelity5/ and fidelity/."""

from __future__ import annotations

import re

import pytest

from tests.integration.browser.fidelity_support import Opener
from tests.integration.browser.fidelity_support import line as _line
from tests.integration.browser.fidelity_support import ref as _ref
from workers.agent.protocols import Action

pytestmark = [pytest.mark.browser]


@pytest.fixture
def open_page(open_fidelity_page: Opener) -> Opener:
    return open_fidelity_page


async def test_a_canvas_a_pointer_dot_and_a_drop_zone_have_refs(open_page: Opener) -> None:
    """Finding 4: a canvas, a small pointer-cursor box and a drop zone had no line (or a
    heading line with no ref), so `click`/`drag` had nothing to aim at."""
    session, page = await open_page("fidelity5/nameless")
    text = (await session.observe()).text
    pad = _line(text, "canvas 300x200")
    assert re.search(r"at \(\d+,\d+\)", pad), pad
    spot = _line(text, "dot 14x14 at")
    assert _ref(spot), spot
    zone = _line(text, "drop target")
    card = _line(text, "Quarterly summary card")
    done = await session.execute(Action("click", {"ref": _ref(pad)}))
    assert done.success, done.reason
    assert (await page.locator("#log").text_content() or "").startswith("pad "), text
    dragged = await session.execute(Action("drag", {"ref": _ref(card), "to_ref": _ref(zone)}))
    assert dragged.success, dragged.reason
    assert await page.locator("#log").text_content() == "dropped"


async def test_a_name_from_several_blocks_keeps_separators_wherever_it_scrolled(
    open_page: Opener,
) -> None:
    """Finding 8: a photo strip read `button "OneTwoThree FourFiveSix"`, and after a scroll
    only the tiles then in view."""
    session, page = await open_page("fidelity5/strip")
    text = (await session.observe()).text
    card = _line(text, "button")
    assert "One Two Three Four Five Six" in card, card
    assert "Red Green Blue" in _line(text, "link"), text
    strip = _ref(_line(text, "scrollable"))
    done = await session.execute(
        Action("scroll", {"ref": strip, "direction": "right", "pixels": 2000})
    )
    assert done.success, done.reason
    assert await page.evaluate("document.getElementById('strip').scrollLeft") > 500
    after = (await session.observe()).text
    assert _line(after, "button").split("] ", 1)[1] == card.split("] ", 1)[1], after


async def test_named_tabs_carry_no_icon_marker(open_page: Opener) -> None:
    """Finding 9: `tab "Overview" selected icon at (86,26)`: the marker is for nameless
    controls only."""
    session, _ = await open_page("fidelity/tabs")
    text = (await session.observe()).text
    for name in ("Overview", "Reviews", "Shipping"):
        assert "icon" not in _line(text, f'"{name}"'), text


async def test_the_viewport_mark_does_not_split_a_row_of_an_inner_scroll_box(
    open_page: Opener,
) -> None:
    """Wave 5 left undone: `[above viewport]` fell between the two half-hour slots of one
    calendar row cut by the scroll box's top edge."""
    session, _ = await open_page("fidelity5/dayslots")
    lines = (await session.observe()).text.splitlines()
    mark = next(i for i, ln in enumerate(lines) if ln.startswith("[above viewport"))
    assert lines[mark + 1] == "9am", lines[mark - 3 : mark + 3]
