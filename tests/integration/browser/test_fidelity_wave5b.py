"""Observation fidelity, wave 5b (relay run of 2026-11-27, findings 4, 8, 9 and the
`[above viewport]` line left undone by wave 5, docs/benchmarks.md): elements with no text or
name, names run together from several children, the icon marker on named controls, and the
viewport's edge inside an inner scroll box. Pages under pages/fidelity5/ and fidelity/."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from playwright.async_api import Browser, Page

from app.settings import Settings
from workers.agent.protocols import Action
from workers.browser.session import PageSession

pytestmark = [pytest.mark.browser]

Opener = Callable[[str], Awaitable[tuple[PageSession, Page]]]


@pytest.fixture
async def open_page(
    chromium_browser: Browser, chromium_path: str, probe_port: int
) -> AsyncIterator[Opener]:
    contexts = []

    async def _open(name: str) -> tuple[PageSession, Page]:
        context = await chromium_browser.new_context(viewport={"width": 1280, "height": 800})
        contexts.append(context)
        settings = Settings(chromium_path=chromium_path, snapshot_max_tokens=1500, humanize=False)
        page = await context.new_page()
        session = await PageSession.open(page, settings)
        result = await session.goto(f"http://127.0.0.1:{probe_port}/{name}.html")
        assert result.success, result.reason
        return session, page

    yield _open
    for context in contexts:
        await context.close()


def _lines(text: str, needle: str) -> list[str]:
    return [ln for ln in text.splitlines() if needle in ln]


def _line(text: str, needle: str) -> str:
    found = _lines(text, needle)
    assert found, f"{needle!r} not in:\n{text}"
    return found[0]


def _ref(line: str) -> str:
    found = re.match(r"\[(\d+:\d+)\]", line)
    assert found, line
    return found.group(1)


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
