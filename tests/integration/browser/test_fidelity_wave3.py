"""Observation fidelity, wave 3 (issue 26 items 1-5, issue 27 item 7): each page under
pages/fidelity3/ reproduces one class of what a capable model could not see in the page
text."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser

from app.settings import Settings
from tests.integration.browser.fidelity_support import Opener
from tests.integration.browser.fidelity_support import line as _line
from tests.integration.browser.fidelity_support import ref as _ref
from workers.agent.context.vision_channel import UNCHANGED, ChannelConfig, VisionChannel
from workers.agent.protocols import Action
from workers.browser.session import PageSession

pytestmark = [pytest.mark.browser]


@pytest.fixture
def open_page(open_fidelity_page: Opener) -> Opener:
    """Pages of pages/fidelity3/ by their name."""
    return lambda name: open_fidelity_page(f"fidelity3/{name}")


async def test_item1_clickable_container_is_a_region_whose_content_lines_follow(
    open_page: Opener,
) -> None:
    session, page = await open_page("container")
    text = (await session.observe()).text
    card = _line(text, '"Key Challenge"')
    assert card.startswith("[") and "region" in card, card
    assert "HARBOUR-4412" not in card, card  # the content is not swallowed into the name
    code = _line(text, "Success! Your access code is HARBOUR-4412.")
    assert not code.startswith("["), code  # a text line of its own
    tile = _line(text, '"Weekly report"')  # named by its first short text
    assert "region" in tile and "Revenue" not in tile, tile
    assert "Revenue went up in every region" in text
    named = _line(text, '"Open the archive"')  # its own aria-label
    assert "region" in named, named
    assert "Nothing is deleted from the archive automatically." in text
    done = await session.execute(Action("click", {"ref": _ref(card)}))
    assert done.success, done.reason
    assert await page.locator("#log").text_content() == "clicked card"


async def test_item2_listbox_options_grid_rows_and_neighbour_labels(open_page: Opener) -> None:
    session, _ = await open_page("options")
    text = (await session.observe()).text
    box = _line(text, 'listbox "Fruit"')
    assert "Apple" in box and "Elderberry" in box and 'value="Cherry"' in box, box
    rows = [ln for ln in text.splitlines() if ln.count("checkbox") >= 7]
    assert len(rows) == 4, text  # 4 rows of 7, not 28 lines
    assert "checked" in rows[0], rows[0]
    minus, plus = _line(text, 'button "-"'), _line(text, 'button "+"')
    assert 'beside "Adults 2"' in minus and 'beside "Adults 2"' in plus, (minus, plus)


async def test_item3_icon_buttons_are_named_never_by_class_names(open_page: Opener) -> None:
    session, page = await open_page("icons")
    text = (await session.observe()).text
    for name in ("bold", "italic", "header", "Insert link", "Undo"):
        assert re.search(rf'\] button "{name}"', text), (name, text)
    assert "ql-" not in text and "w-full" not in text and "h-full" not in text, text
    unnamed = [ln for ln in text.splitlines() if re.match(r"\[\d+:\d+\] button icon at", ln)]
    assert len(unnamed) >= 4, text  # the rect button and three cells: icons with a position
    done = await session.execute(Action("click", {"ref": _ref(unnamed[-1])}))
    assert done.success, done.reason
    assert await page.locator("#log").text_content() == "cell 2"


async def test_item4_state_after_acting_is_in_the_text(open_page: Opener) -> None:
    session, page = await open_page("state")
    text = (await session.observe()).text
    editor = _line(text, 'textbox "Message"')
    assert "**neque**" in editor and "_morbi_" in editor, editor
    assert 'value="3 (0..10)"' in _line(text, 'slider "Volume"'), text
    cells = [ln for ln in text.splitlines() if "fill" in ln]
    assert any("red" in ln for ln in cells), text
    await page.evaluate(
        """() => { const p = document.getElementById('para').firstChild;
        const r = document.createRange(); r.setStart(p, 17); r.setEnd(p, 32);
        getSelection().removeAllRanges(); getSelection().addRange(r); }"""
    )
    await page.evaluate(
        "() => { const b = document.getElementById('box');"
        " b.style.width = '300px'; b.style.height = '90px'; }"
    )
    text = (await session.observe()).text
    assert '[selected text: "quick brown fox"]' in text, text
    assert "300x90" in _line(text, '"Resizable box"'), text


async def test_item5_a_small_page_stays_whole_after_a_click_scrolls_it(
    open_page: Opener,
) -> None:
    session, page = await open_page("small")
    text = (await session.observe()).text
    done = await session.execute(Action("click", {"ref": _ref(_line(text, "Confirm order"))}))
    assert done.success, done.reason
    assert await page.evaluate("() => scrollY") > 500  # the click scrolled the page
    text = (await session.observe()).text
    assert "Quantity to order: 7 crates" in text, text
    assert "confirmed" in text


async def test_issue27_item7_a_page_moved_by_its_timers_gets_a_fresh_image(
    chromium_browser: Browser, chromium_path: str, probe_port: int
) -> None:
    context = await chromium_browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        page = await context.new_page()
        settings = Settings(chromium_path=chromium_path, humanize=False, llm_worker_vision=True)
        session = await PageSession.open(page, settings)
        url = f"http://127.0.0.1:{probe_port}/fidelity3/ticking.html"
        assert (await session.goto(url)).success
        channel = VisionChannel(ChannelConfig(enabled=True))
        first = await session.observe()
        assert first.image is not None
        channel.content(first.text, first, 1)
        await page.evaluate("() => window.tick()")  # a style change only: the gate holds
        second = await session.observe()
        assert second.version == first.version  # same page state for the text and refs
        assert second.image is not None and second.image != first.image
        content = channel.content(second.text, second, 2)
        assert UNCHANGED not in str(content) and channel.images_sent == 2
        third = await session.observe()  # nothing moved: the same image, said unchanged
        assert UNCHANGED in str(channel.content(third.text, third, 3))
    finally:
        await context.close()
