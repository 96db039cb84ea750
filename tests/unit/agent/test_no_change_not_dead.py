"""Issue 27 item 2 on the agent side: "the control answered with the same page" (no_change)
is no dead end, the same action on a changed page state is no repeat; issue 26/27 argument
shapes: bulk above 30 actions, press_key with a repeat count, the pointer tool."""

from __future__ import annotations

from typing import Any

import pytest

from workers.agent.errors import FeedbackError
from workers.agent.loop.batch import BatchRunner, page_state
from workers.agent.memory.ledger import Ledger
from workers.agent.protocols import Action, Observation, ToolCall, ToolResult
from workers.agent.tools import parse_action
from workers.agent.tools.registry import MAX_BULK_ACTIONS

FORM = '[3:1] textbox "Answer" value="41"\n[3:2] button "Submit"\nWrong answer'
FORM_NEW = '[4:1] textbox "Answer" value="42"\n[4:2] button "Submit"\nWrong answer'


def _runner() -> BatchRunner:
    none: Any = None
    return BatchRunner(none, none, none, Ledger("goal"), none, none)


def _state(text: str) -> Observation:
    return Observation("http://quiz/q", "Quiz", text, 3)


def test_a_control_that_answered_with_the_same_page_is_no_dead_end() -> None:
    runner = _runner()
    submit = Action("click", {"ref": "3:2"})
    same = ToolResult(success=False, error="no_change", reason="handlers ran, same page")
    assert not runner.ingest(1, submit, same, _state(FORM))
    assert runner.ledger.dead_ends == []


def test_the_same_action_on_another_page_state_is_no_repeat() -> None:
    runner = _runner()
    submit = Action("click", {"ref": "3:2"})
    dead = ToolResult(success=False, error="no_effect", reason="nothing happened")
    assert not runner.ingest(1, submit, dead, _state(FORM))
    assert runner.ingest(2, submit, dead, _state(FORM))  # the very same state: a repeat
    again = Action("click", {"ref": "4:2"})
    assert not runner.ingest(3, again, dead, _state(FORM_NEW))  # another answer typed
    # a new snapshot version alone is the same state
    assert page_state(FORM) == page_state(FORM.replace("[3:", "[9:"))


def test_bulk_takes_more_than_thirty_actions_and_press_key_a_repeat() -> None:
    assert MAX_BULK_ACTIONS >= 60
    steps = [{"tool": "press_key", "key": "ArrowRight"} for _ in range(45)]
    parsed = parse_action(ToolCall("c1", "bulk", {"actions": steps}))
    assert len(parsed.args["actions"]) == 45
    pressed = parse_action(ToolCall("c2", "press_key", {"key": "right", "count": 30}))
    assert pressed.args == {"key": "ArrowRight", "repeat": 30}
    with pytest.raises(FeedbackError):
        parse_action(ToolCall("c3", "press_key", {"key": "a", "repeat": 1000}))


def test_pointer_takes_points_a_path_or_one_point() -> None:
    one = parse_action(ToolCall("c1", "pointer", {"x": 10, "y": 20}))
    assert one.args["points"] == [(10.0, 20.0)]
    path = parse_action(
        ToolCall(
            "c2", "pointer", {"path": [{"x": 1, "y": 2}, [3, 4]], "press": True, "hold_ms": 300}
        )
    )
    assert path.args["points"] == [(1.0, 2.0), (3.0, 4.0)]
    assert path.args["press"] is True and path.args["pause_ms"] == 300
