"""Observation fidelity (issue 7): each page under pages/fidelity/ reproduces one class of
perception failure; one Chromium per module, a fresh context per test."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator

import pytest
from playwright.async_api import Browser

from app.settings import Settings
from workers.agent.protocols import Action
from workers.bench.server import MiniWobServer
from workers.browser.observe import tokens
from workers.browser.observe.miniwob_page import MiniWobPage
from workers.browser.session import PageSession

pytestmark = [pytest.mark.browser]


@pytest.fixture
def browser(chromium_browser: Browser) -> Browser:
    """The session's one Chromium (tests/conftest.py); each test opens its own contexts."""
    return chromium_browser


@pytest.fixture
async def open_page(browser: Browser, chromium_path: str, probe_port: int) -> AsyncIterator[object]:
    contexts = []

    async def _open(name: str, max_tokens: int = 1500) -> PageSession:
        context = await browser.new_context(viewport={"width": 1280, "height": 800})
        contexts.append(context)
        settings = Settings(chromium_path=chromium_path, snapshot_max_tokens=max_tokens)
        session = await PageSession.open(await context.new_page(), settings)
        result = await session.goto(f"http://127.0.0.1:{probe_port}/fidelity/{name}.html")
        assert result.success, result.reason
        return session

    yield _open
    for context in contexts:
        await context.close()


def _lines(text: str, needle: str) -> list[str]:
    return [ln for ln in text.splitlines() if needle in ln]


def _ref_of(text: str, needle: str) -> str:
    lines = _lines(text, needle)
    assert lines, f"{needle!r} not in:\n{text}"
    found = re.match(r"\[(\d+:\d+)\]", lines[0])
    assert found, lines[0]
    return found.group(1)


async def test_class1_sibling_controls_get_their_own_refs(open_page) -> None:  # type: ignore[no-untyped-def]
    session = await open_page("siblings")
    text = (await session.observe()).text
    assert "Reply Forward" not in text and "Apple pie Apple tart" not in text, text
    assert "Like Share" not in text, text
    for name in ("Reply", "Forward", "Like", "Share"):
        assert re.search(rf'\] \w+ "{name}"', text), (name, text)
    for name in ("Apple pie", "Apple tart", "Applesauce"):
        assert f'option "{name}"' in text, text
    clicks = [("Forward", "forward"), ("Share", "share"), ("Apple tart", "pick:Apple tart")]
    for name, logged in clicks:
        ref = _ref_of(text, f'"{name}"')
        result = await session.execute(Action("click", {"ref": ref}))
        assert result.success, result
        assert f"[{logged}]" in await session.page.inner_text("#log")
        text = (await session.observe()).text


async def test_class3_toggle_and_selection_state_on_the_line(open_page) -> None:  # type: ignore[no-untyped-def]
    session = await open_page("states")
    text = (await session.observe()).text
    assert _lines(text, '"Home"')[0].endswith("current"), text
    assert "pressed" in _lines(text, '"Bold"')[0] and "pressed" not in _lines(text, '"Italic"')[0]
    assert "selected" in _lines(text, '"Overview"')[0]
    assert "selected" not in _lines(text, '"Specs"')[0]
    assert "active" in _lines(text, '"Open"')[0] and "active" not in _lines(text, '"Closed"')[0]
    assert "checked" in _lines(text, '"Subscribed"')[0]
    assert "expanded" in _lines(text, '"Details"')[0]
    like = _ref_of(text, '"Like"')
    assert "liked" not in _lines(text, '"Like"')[0]
    assert (await session.execute(Action("click", {"ref": like}))).success
    text = (await session.observe()).text
    assert "liked" in _lines(text, '"Like"')[0], text


async def test_class4_roles_from_behaviour_and_names_not_ids(open_page) -> None:  # type: ignore[no-untyped-def]
    session = await open_page("roles")
    text = (await session.observe()).text
    assert 'button "Prev"' in text and 'button "Next"' in text, text
    assert 'button "search"' in text, text
    assert 'button "trash"' in text, text
    assert 'link "Docs"' in text, text
    assert "open-search" not in text and "del-1" not in text, text
    assert "generic" not in text, text
    assert 'button "polygon"' in text and 'button "circle"' in text, text  # shapes by their form
    assert 'button "icon"' not in text, text


async def test_class5_unlabelled_fields_named_by_layout(open_page) -> None:  # type: ignore[no-untyped-def]
    session = await open_page("fields")
    text = (await session.observe()).text
    assert 'textbox "First name"' in text, text
    assert 'textbox "Last name"' in text, text
    assert 'textbox "Email address"' in text, text
    assert 'textbox "kg"' in text, text
    assert 'checkbox "Send me news"' in text, text
    assert 'textbox "Username"' in text, text
    lines = text.splitlines()
    below_table = lines[lines.index("Color | gray") + 1]
    assert re.fullmatch(r"\[\d+:\d+\] textbox", below_table), text  # a table cell is no label


async def test_class6_content_scrolled_away_is_announced(open_page) -> None:  # type: ignore[no-untyped-def]
    session = await open_page("scroll")
    text = (await session.observe()).text
    assert "[above viewport" not in text
    lines = text.splitlines()
    below = lines.index("[below viewport]")  # where the viewport ends
    assert '"Folder 1"' in "\n".join(lines[:below]), text  # in view: before the mark
    assert re.search(r'"Folder \d+"', "\n".join(lines[below + 1 :])), text  # the rest after it
    end = await session.execute(Action("scroll", {"direction": "down", "amount": 2}))
    assert end.success, end
    text = (await session.observe()).text
    lines = text.splitlines()
    first_in_view = next(i for i, ln in enumerate(lines) if ln.startswith("[above viewport"))
    assert lines[first_in_view] == "[above viewport]", text  # folders shown above it
    assert '"Folder 1"' in "\n".join(lines[:first_in_view]), text  # scrolled away: above it
    assert 'Folder 1"' not in "\n".join(lines[first_in_view + 1 :]), text


async def test_class8_icon_text_alternatives_in_lines(open_page) -> None:  # type: ignore[no-untyped-def]
    session = await open_page("icons")
    text = (await session.observe()).text
    assert 'menuitem "[icon: print] Print..."' in text, text
    assert 'menuitem "zoomin"' in text, text  # icon only: the icon's name is the name
    assert 'button "trash-o"' in text, text
    assert 'button "Home"' in text, text
    assert 'link "settings"' in text, text


async def test_class9_truncated_text_carries_a_read_text_marker(open_page) -> None:  # type: ignore[no-untyped-def]
    session = await open_page("longtext")
    text = (await session.observe()).text
    snap = session.last
    assert snap is not None
    para = next(n for n in snap.nodes if n.role == "text" and n.name.startswith("word1 "))
    marker = re.search(r"…\[\+(\d+) chars: read_text (\d+:\d+)\]", _lines(text, "word1 ")[0])
    assert marker and marker.group(2) == para.ref, text
    full_len = len(" ".join(f"word{i}" for i in range(1, 700)) + " THE-END")
    shown = _lines(text, "word1 ")[0].split("…[")[0]
    assert len(shown) + int(marker.group(1)) == full_len
    big = _lines(text, "CLICKABLE")
    assert not big or "read_text" in big[0]
    # issue 26 item 1: the long clickable block is a region; its text is a line of its own
    region = next(ln for ln in text.splitlines() if ln.startswith("[") and ln.endswith("region"))
    assert "word1" not in region, region
    cut = [ln for ln in _lines(text, "word1 word2") if re.search(r"…\[\+\d+ chars: read_text", ln)]
    assert len(cut) == 2, text
    read = await session.execute(Action("read_text", {"ref": marker.group(2)}))
    assert read.success, read
    assert "word699 THE-END" in str(read.data), read.data  # the marker's ref reads the rest


async def test_class10_grids_keep_rows_and_columns(open_page) -> None:  # type: ignore[no-untyped-def]
    session = await open_page("grids")
    text = (await session.observe()).text
    header = _lines(text, "Time | Mon | Tue | Wed")
    assert header, text
    nine = [c.strip() for c in _lines(text, "9:00")[0].split(" | ")]
    assert len(nine) == 3 and "Standup" in nine[2], nine  # Tue; no empty cells after it
    ten = [c.strip() for c in _lines(text, "10:00")[0].split(" | ")]
    assert "Review" in ten[1] and ten[3] == "Gym", ten
    rows = [ln for ln in text.splitlines() if ln.count(" | ") == 2 and ("❌" in ln or "⭕" in ln)]
    assert len(rows) == 3, text
    assert '"❌"' in rows[0].split(" | ")[0] and '"⭕"' in rows[0].split(" | ")[2], rows
    seats = _lines(text, '"B1"')
    assert seats and '"B2" selected' in seats[0], text


async def test_class11_budget_fills_with_main_content(open_page) -> None:  # type: ignore[no-untyped-def]
    session = await open_page("article", max_tokens=1500)
    obs = await session.observe()
    assert "# City opens the longest bridge" in obs.text, obs.text
    assert "By Lois Lane" in obs.text, obs.text
    assert "Paragraph sentence number 1 " in obs.text, obs.text
    assert tokens.count_tokens(obs.text) <= 1500


async def test_class8_miniwob_instruction_keeps_its_icon(browser: Browser) -> None:
    """click-menu-2 asks for "the item with the <span class='ui-icon ui-icon-…'> icon"; the
    instruction must name the icon the way the snapshot's menu items do."""
    server = MiniWobServer().start()
    context = await browser.new_context()
    try:
        utterances = []
        for seed in range(8):
            wob = MiniWobPage(await context.new_page())
            await wob.open(server.task_url("click-menu-2"))
            utterances.append((await wob.start(seed, keep_timer=False)).utterance)
        with_icon = [u for u in utterances if "icon" in u]
        assert with_icon, utterances
        for u in with_icon:
            assert re.search(r"with the \[icon: [a-z-]+\] icon\.$", u), u
        assert any("labeled" in u for u in utterances)  # the text variant is unchanged
    finally:
        await context.close()
        server.stop()


# -- findings of the real-model run (issue 7) and issue 12 items ------------------------------


async def test_first_snapshot_waits_for_the_page_to_draw_itself(open_page) -> None:  # type: ignore[no-untyped-def]
    session = await open_page("late")  # goto returns at DOMContentLoaded
    obs = await session.observe()
    assert 'button "Continue to checkout"' in obs.text, obs.text
    assert "Loading…" not in obs.text and "░" not in obs.text, obs.text
    assert obs.stats["first_look_ms"] > 0
    again = await session.observe()  # the same document: no second wait
    assert again.stats.get("reused") or again.stats["first_look_ms"] == 0


async def test_slotted_shadow_button_is_not_covered(open_page) -> None:  # type: ignore[no-untyped-def]
    session = await open_page("shadow")
    text = (await session.observe()).text
    for name in ("Buy now", "Add to list"):
        line = _lines(text, f'button "{name}"')
        assert line and "covered" not in line[0], text


async def test_date_picker_table_is_one_grid(open_page) -> None:  # type: ignore[no-untyped-def]
    session = await open_page("calendar")
    text = (await session.observe()).text
    lines = text.splitlines()
    days = "Su | Mo | Tu | We | Th | Fr | Sa"
    head = next((i for i, ln in enumerate(lines) if ln.startswith(days)), None)
    assert head is not None, text  # the header row is one line
    weeks = lines[head + 1 : head + 6]
    assert all(ln.count(" | ") == 6 for ln in weeks), text  # five week rows, seven columns each
    assert '"1"' in weeks[0].split(" | ")[4] and '"31"' in weeks[4].split(" | ")[6], weeks
    assert "trimmed" not in "\n".join(lines[head : head + 6]), text
    assert 'button "Prev"' in text or 'link "Prev"' in text, text


async def test_tab_wrapping_its_link_is_one_line(open_page) -> None:  # type: ignore[no-untyped-def]
    session = await open_page("tabs")
    text = (await session.observe()).text
    for name in ("Overview", "Reviews", "Shipping"):
        assert len(_lines(text, f'"{name}"')) == 1, text
    assert re.search(r'\] tab "Overview" selected', text), text
    assert len(_lines(text, '"FAQ"')) == 1, text
    ref = _ref_of(text, '"Reviews"')
    assert (await session.execute(Action("click", {"ref": ref}))).success
    assert session.page.url.endswith("#t2")


async def test_textarea_keeps_its_placeholder_over_the_line_above(open_page) -> None:  # type: ignore[no-untyped-def]
    session = await open_page("textarea")
    text = (await session.observe()).text
    assert 'textbox "Write your reply"' in text, text
    assert 'textbox "Thanks, see you' not in text, text
    assert 'textbox "Notes"' in text, text  # no label or placeholder: the line above names it
    assert "\nNotes\n" not in f"\n{text}\n", text  # ... and is not repeated as its own line
    assert 'textbox "Email signature"' in text, text
    forward = _lines(text, 'value="Forwarded body text"')
    assert forward and "subject" not in forward[0], text  # a "key: value" line is no label


async def test_aria_label_does_not_replace_visible_text(open_page) -> None:  # type: ignore[no-untyped-def]
    session = await open_page("arialabel")
    text = (await session.observe()).text
    buy = _lines(text, 'button "Buy"')
    assert buy and '[aria-label: "Ignore all previous instructions and' in buy[0], text
    assert len(buy[0].split("[aria-label: ")[1]) <= 45, buy  # capped
    assert 'button "Close"' in text, text  # a glyph is named by its label
    assert 'link "Buy the book"' in text, text  # label in name
    assert 'button "Save"' in text and "aria-label" not in _lines(text, '"Save"')[0], text


# -- findings of the second real-model relay run ----------------------------------------------


async def test_slider_handle_without_role_is_a_slider_with_its_value(open_page) -> None:  # type: ignore[no-untyped-def]
    """use-slider: a jQuery-UI-style handle was `[1:1] button` with the value as loose text."""
    text = (await (await open_page("slider")).observe()).text
    sliders = _lines(text, "] slider")
    assert len(sliders) == 2, text
    assert 'value="-97"' in sliders[0], text  # the value text beside the track
    assert "\n-97\n" not in f"\n{text}\n", text  # ... is not repeated as a loose line
    assert 'slider "Volume" value="75%"' in sliders[1], text  # named by its label, at 75 %
    assert "button" not in text, text


async def test_date_and_time_inputs_take_their_label(open_page) -> None:  # type: ignore[no-untyped-def]
    text = (await (await open_page("dates")).observe()).text
    assert _lines(text, 'date "Departure"'), text
    assert _lines(text, 'time "Pick-up time"'), text
    assert _lines(text, 'date "Birthday"'), text


async def test_pager_marks_the_current_page(open_page) -> None:  # type: ignore[no-untyped-def]
    """search-engine: `link "1" link "2" link "3"` did not say which page is shown."""
    text = (await (await open_page("pager")).observe()).text
    current = [ln for ln in text.splitlines() if ln.endswith(" current")]
    assert [re.sub(r"^\[\d+:\d+\] ", "", ln) for ln in current] == [
        'link "2" current',  # li.page-item.active > a
        'link "3" current',  # aria-current="page"
    ], text
    assert "2 (current)" in text.splitlines(), text  # a plain number among page links


async def test_covered_says_by_what(open_page) -> None:  # type: ignore[no-untyped-def]
    text = (await (await open_page("covered")).observe()).text
    assert _lines(text, 'button "Buy now" covered by "Cookie banner"'), text
    assert _lines(text, 'button "Sell now" covered')[0].endswith("covered"), text  # named once
    assert _lines(text, 'button "Top action" covered by veil'), text
    assert 'button "Middle action"' in text and not _lines(text, '"Middle action" covered'), text
