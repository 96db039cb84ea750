"""`retarget` (workers/agent/loop/refresh.py, issue 31 item 2): a choice made on a view that
changed while the model thought is kept exactly when the elements it targets are the same
ones (line, heading above, rank), moved to their new refs."""

from __future__ import annotations

from workers.agent.loop.refresh import retarget
from workers.agent.protocols import Observation, ToolCall

URL = "http://site.test/"


def view(version: int, *lines: str) -> Observation:
    text = "\n".join(line.replace("@", f"{version}:") for line in lines)
    return Observation(URL, "t", text, version)


def call(name: str, **args: object) -> ToolCall:
    return ToolCall("c1", name, dict(args))


def test_a_target_moved_down_by_a_new_line_keeps_its_identity() -> None:
    seen = view(3, '- text "12:00"', '[@1] button "Start"', '[@2] button "Stop"')
    now = view(4, '- text "12:01"', '[@1] link "News"', '[@2] button "Start"', '[@3] button "Stop"')
    kept = retarget([call("click", ref="3:2"), call("press_key", key="Enter")], seen, now)
    assert kept is not None and kept[0].arguments == {"ref": "4:3"}


def test_a_target_whose_name_changed_or_vanished_asks_again() -> None:
    seen = view(3, '[@1] button "Click Second!"')
    assert retarget([call("click", ref="3:1")], seen, view(4, '[@1] button "Time\'s up"')) is None
    assert retarget([call("click", ref="3:1")], seen, view(4, '- text "Game over"')) is None


def test_same_named_controls_are_told_apart_by_the_heading_above_them() -> None:
    seen = view(
        5, "## Newsletter", '[@1] button "Continue"',
        "## Close account", '[@2] button "Continue"',
    )  # fmt: skip
    replaced = view(6, "## Close account", '[@1] button "Continue"')
    assert retarget([call("click", ref="5:1")], seen, replaced) is None
    assert retarget([call("click", ref="5:2")], seen, replaced) == (call("click", ref="6:1"),)


def test_bulk_actions_are_retargeted_and_reads_and_done_always_stay() -> None:
    seen = view(2, '[@1] textbox "Name"', '[@2] button "Save"', '- text "0 s"')
    now = view(3, '- text "banner"', '[@1] textbox "Name"', '[@2] button "Save"', '- text "1 s"')
    bulk = call(
        "bulk",
        actions=[{"tool": "type", "ref": "2:1", "text": "x"}, {"tool": "click", "ref": "2:2"}],
    )
    (moved,) = retarget([bulk], seen, now) or ()
    assert [a["ref"] for a in moved.arguments["actions"]] == ["3:1", "3:2"]
    gone = view(3, '- text "You won"')
    reads = [call("read_text", ref="2:1"), call("done", answer="won", success=True)]
    assert retarget(reads, seen, gone) == tuple(reads)


def test_another_page_asks_again() -> None:
    seen = view(2, '[@1] button "Go"')
    now = Observation("http://site.test/next", "t", '[3:1] button "Go"', 3)
    assert retarget([call("click", ref="2:1")], seen, now) is None


def test_a_button_that_became_enabled_while_the_model_decided_is_the_same_button() -> None:
    """The challenge relay run: "Claim offer" was disabled for a countdown; the click chosen
    on that view was refused as a changed target when the button had become clickable."""
    seen = view(1, "The offer unlocks in 3 s.", '[@3] button "Claim offer" disabled')
    now = view(2, "The offer unlocks in 0 s.", '[@3] button "Claim offer" focused')
    kept = retarget([call("click", ref="1:3")], seen, now)
    assert kept is not None and kept[0].arguments == {"ref": "2:3"}
    renamed = view(2, '[@3] button "Offer claimed" disabled')
    assert retarget([call("click", ref="1:3")], seen, renamed) is None


def test_a_navigate_to_an_address_runs_whatever_page_came_meanwhile() -> None:
    """Relay finding (issue 33, misago-14, both configurations): the sign-in reloaded the
    forum while the model chose to open /admincp/; the navigate was thrown away and the model
    asked again for the same call. An address does not depend on the page."""
    seen = view(4, '[@1] textbox "Password" disabled')
    now = Observation("http://site.test/?ref=login", "t", '[5:1] link "Open your options"', 5)
    go = [call("navigate", url="http://site.test/admincp/")]
    assert retarget(go, seen, now) == tuple(go)
    assert retarget([*go, call("click", ref="4:1")], seen, now) is None
