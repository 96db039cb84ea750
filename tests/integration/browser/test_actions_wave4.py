"""Actions that reported success for no effect, or could not be done at all (issue 26 items
8-11, 14; issue 27 items 2, 3, 6), each on a local page under pages/actions/."""

from __future__ import annotations

import pytest
from playwright.async_api import Page

from tests.integration.browser.test_relay_wave2 import _ref_of
from workers.agent.protocols import Action, LLMReply
from workers.agent.testing.llms import FakeLLM
from workers.browser.session import PageSession

pytestmark = pytest.mark.browser


async def _open(session: PageSession, probe_port: int, name: str) -> None:
    assert (await session.goto(f"http://127.0.0.1:{probe_port}/actions/{name}")).success
    await session.observe()


async def _run(session: PageSession, tool: str, **args: object) -> object:
    return await session.execute(Action(tool, args))


# -- 26.8: key presses judged like clicks, menus, bulk per action, horizontal strips ------


async def test_a_key_nothing_listens_to_is_no_success(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "keys.html")
    pressed = await session.execute(Action("press_key", {"key": "r"}))
    assert not pressed.success and pressed.error == "no_effect", pressed.reason


async def test_key_presses_that_move_a_slider_are_success_and_repeat(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "keys.html")
    await page.locator("#vol").focus()
    pressed = await session.execute(Action("press_key", {"key": "ArrowUp", "repeat": 8}))
    assert pressed.success, pressed.reason
    assert await page.locator("#vol").input_value() == "58"
    assert "'50' -> '58'" in pressed.reason, pressed.reason


async def test_bulk_reports_each_key_press_and_stops_where_nothing_moved(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "keys.html")
    await page.locator("#vol").fill("99")
    await page.locator("#vol").focus()
    steps = [{"tool": "press_key", "args": {"key": "ArrowUp"}} for _ in range(3)]
    ran = await session.execute(Action("bulk", {"actions": steps}))
    assert not ran.success and "step 2" in ran.reason, ran.reason  # 99 -> 100, then stuck
    assert "1. " in ran.data["steps"] and "'99' -> '100'" in ran.data["steps"], ran.data


async def test_a_click_says_whether_the_menu_it_controls_opened(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "menu.html")
    file = await _ref_of(session, 'button "File"')
    first = await session.execute(Action("click", {"ref": file}))
    assert "did NOT open" in first.reason, first.reason
    second = await session.execute(Action("click", {"ref": file}))
    assert second.success and "menu opened" in second.reason, second.reason
    edit = await _ref_of(session, 'button "Edit"')
    opened = await session.execute(Action("click", {"ref": edit}))
    assert opened.success and "menu opened" in opened.reason, opened.reason


async def test_horizontal_scroll_moves_an_overflow_strip(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "strip.html")
    moved = await session.execute(Action("scroll", {"direction": "right"}))
    assert moved.success, moved.reason
    assert await page.locator("#strip").evaluate("e => e.scrollLeft") > 0
    card = await _ref_of(session, "button")
    back = await session.execute(Action("scroll_within", {"ref": card, "direction": "left"}))
    assert back.success, back.reason
    assert await page.locator("#strip").evaluate("e => e.scrollLeft") == 0


# -- 26.9: pointer primitives ----------------------------------------------------------------


async def test_moving_the_pointer_over_a_canvas_is_judged_by_its_pixels(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "pointer.html")
    moved = await session.execute(Action("pointer", {"points": [[120, 80]]}))
    assert moved.success and "pixels changed" in moved.reason, moved.reason
    outside = await session.execute(Action("pointer", {"points": [[5000, 10]]}))
    assert outside.error == "out_of_bounds"


async def test_press_move_pause_release_holds_before_the_release(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "pointer.html")
    path = [[50, 50], [100, 60], [150, 70], [200, 80]]
    thrown = await session.execute(
        Action("pointer", {"points": path, "press": True, "pause_ms": 500})
    )
    assert thrown.success, thrown.reason
    assert await page.locator("#release").inner_text() == "steady"


async def test_click_at_a_point_stays_exact(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "pointer.html")
    clicked = await session.execute(Action("click_at", {"x": 203, "y": 117}))
    assert clicked.success, clicked.reason
    assert await page.locator("#clicks").inner_text() == "203,117"
    assert "snap" not in clicked.reason


# -- 26.10: a range's value in one action ------------------------------------------------------


async def test_typing_a_number_sets_a_range_with_its_events(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "range.html")
    speed = await _ref_of(session, 'slider "Speed"')
    typed = await session.execute(Action("type", {"ref": speed, "text": "145"}))
    assert typed.success and "holds 145" in typed.reason, typed.reason
    assert await page.locator("#speed").input_value() == "145"
    assert await page.locator("#changes").inner_text() == "1"
    assert await page.locator("#released").inner_text() == "145"
    snapped = await session.execute(Action("type", {"ref": speed, "text": "147"}))
    assert "nearest allowed value" in snapped.reason, snapped.reason


# -- 26.11: read results inside bulk -----------------------------------------------------------


async def test_bulk_returns_the_results_of_its_read_tools(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "pointer.html")
    await session.execute(Action("pointer", {"points": [[100, 100]]}))  # a red square there
    steps = [
        {"tool": "read_canvas", "args": {"x": 100, "y": 100}},
        {"tool": "read_canvas", "args": {"x": 300, "y": 250}},
    ]
    ran = await session.execute(Action("bulk", {"actions": steps}))
    assert ran.success, ran.reason
    reads = ran.data["reads"]
    assert reads.startswith("1. read_canvas") and "\n2. read_canvas" in reads, reads
    assert "204" in reads.splitlines()[0] and "255" in reads.splitlines()[1], reads


# -- 26.14: uploads of the run's own files -----------------------------------------------------


async def test_upload_a_file_the_run_downloaded_and_one_it_wrote(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "files.html")
    link = await _ref_of(session, 'link "Download the report"')
    assert (await session.execute(Action("click", {"ref": link}))).success
    up = await _ref_of(session, "Upload")
    sent = await session.execute(Action("upload_file", {"ref": up, "files": ["report.txt"]}))
    assert sent.success, sent.reason
    await page.locator("#content").filter(has_text="42 units").wait_for()
    wrote = await session.execute(
        Action("upload_file", {"ref": up, "files": ["answer.txt"], "text": "hello upload"})
    )
    assert wrote.success, wrote.reason
    await page.locator("#content").filter(has_text="hello upload").wait_for()
    assert await page.locator("#name").inner_text() == "answer.txt"
    stray = await session.execute(Action("upload_file", {"ref": up, "files": ["/etc/passwd"]}))
    assert stray.error == "file_not_attached", stray.reason


# -- 27.2: no effect vs the same page ---------------------------------------------------------


async def test_a_control_that_answers_with_the_same_page_is_not_a_dead_click(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "keys.html")
    check = await _ref_of(session, 'button "Check"')
    same = await session.execute(Action("click", {"ref": check}))
    assert not same.success and same.error == "no_change", same.reason
    dead = await _ref_of(session, 'button "Dead"')
    nothing = await session.execute(Action("click", {"ref": dead}))
    assert nothing.error == "no_effect", nothing.reason
    await _open(session, probe_port, "game.html")
    game_key = await session.execute(Action("press_key", {"key": "q"}))
    assert game_key.success and "key handlers ran" in game_key.reason, game_key.reason


async def test_bulk_sub_actions_do_not_count_as_steps_for_stalling(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "keys.html")
    dead = await _ref_of(session, 'button "Dead"')
    steps = [
        {"tool": "press_key", "args": {"key": "Tab"}},
        {"tool": "click", "args": {"ref": dead}},
    ]
    first = await session.execute(Action("bulk", {"actions": steps}))
    second = await session.execute(Action("bulk", {"actions": steps}))
    assert not first.success and not second.success
    # two failed steps: no stalling yet (their four sub-actions are no steps of their own)
    assert "stalling" not in second.data, second.reason


# -- 27.3: the target must get the event ------------------------------------------------------


async def test_a_click_on_a_hover_item_that_closed_is_no_success(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "menu.html")
    more = await _ref_of(session, 'button "More"')
    assert (await session.execute(Action("hover", {"ref": more}))).success
    export = await _ref_of(session, 'button "Export"')
    clicked = await session.execute(Action("click", {"ref": export}))
    assert not clicked.success and "did not get the click" in clicked.reason, clicked.reason
    assert await page.locator("#picked").inner_text() == "none"


async def test_a_drag_that_only_selects_text_is_no_success(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "drag_text.html")
    card = await _ref_of(session, "Quarterly summary card")
    zone = await page.locator("#para").bounding_box()
    assert zone is not None
    dragged = await session.execute(
        Action("drag", {"ref": card, "x": zone["x"] + 200, "y": zone["y"] + 5})
    )
    assert not dragged.success and "selected text" in dragged.reason, dragged.reason


# -- 27.6: files and tools that refused reasonable input -------------------------------------


async def test_read_download_sends_a_downloaded_image_to_the_vision_model(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "files.html")
    badge = await _ref_of(session, 'link "Download the badge"')
    assert (await session.execute(Action("click", {"ref": badge}))).success
    vision = FakeLLM([LLMReply("CODE 77", (), 10, 3, "fake-vision", 0.0, "stop")], side={})
    session.look_llm = vision
    read = await session.execute(Action("read_download", {"name": "badge.png"}))
    assert read.success and read.data["text"] == "CODE 77", read.reason
    image = [p for p in vision.prompts[0][0]["content"] if p.get("type") == "image_url"]
    assert image, vision.prompts


async def test_dom_search_takes_a_selector_list_as_its_query(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "reading.html")
    found = await session.execute(Action("dom_search", {"query": "iframe, canvas, button"}))
    assert found.success, found.reason
    assert {h["tag"] for h in found.data["hits"]} == {"iframe", "canvas", "button"}


async def test_read_text_keeps_the_whitespace_of_pre_and_textarea(
    session: PageSession, page: Page, probe_port: int
) -> None:
    await _open(session, probe_port, "reading.html")
    notes = await _ref_of(session, 'textbox "Notes"')
    read = await session.execute(Action("read_text", {"ref": notes}))
    assert read.data["text"] == "  first line\n\ttabbed line\n", read.data
    page_text = (await session.execute(Action("read_text", {}))).data["text"]
    assert "def f(x):\n    return  x * 2\n" in page_text, page_text


# -- issue 31 item 4: a bulk whose win replaced the controls ------------------------------


async def test_a_bulk_whose_click_won_is_no_failure_when_the_rest_finds_nothing(
    session: PageSession, page: Page, probe_port: int
) -> None:
    """The success screen replaced the controls, so the bulk's next click found its element
    gone: the bulk did what it could and says so, it did not fail (and no dead end)."""
    await _open(session, probe_port, "win.html")
    star, moon = await _ref_of(session, 'button "Star"'), await _ref_of(session, 'button "Moon"')
    steps = [{"tool": "click", "args": {"ref": star}}, {"tool": "click", "args": {"ref": moon}}]
    ran = await session.execute(Action("bulk", {"actions": steps}))
    assert ran.success and ran.page_changed, ran.reason
    assert "stopped at step 2" in ran.reason and "2. click not done" in ran.data["steps"]
    assert "You won" in await page.inner_text("body")
