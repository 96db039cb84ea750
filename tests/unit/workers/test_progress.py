"""`webagent run` log lines (workers/cli/progress.py describe) from canned events: the model's
intent per step, actions without default arguments, the checklist, and the priced cost."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console

from workers.cli.client import StreamedEvent
from workers.cli.progress import ProgressView, describe


def _line(type: str, **data: Any) -> str | None:
    text = describe(StreamedEvent(seq=1, type=type, data=data))
    return None if text is None else text.plain


def _llm(role: str = "worker", content: str | None = None, **more: Any) -> dict[str, Any]:
    call = {"step": 3, "role": role, "model": "gpt-4o", "input_tokens": 1000}
    return {**call, "output_tokens": 100, "content": content, "reasoning": None, **more}


def test_the_worker_next_goal_is_the_step_intent() -> None:
    notes = {"evaluation_previous_goal": "ok", "memory": "m", "next_goal": "Open the cart"}
    assert _line("llm.call", **_llm(content=json.dumps(notes))) == "[  3] » Open the cart"


def test_plain_text_or_reasoning_gives_one_capped_line() -> None:
    long = "Look for the price table " + "x" * 200 + "\nsecond line"
    line = _line("llm.call", **_llm(content=long))
    assert line is not None and line.startswith("[  3] » Look for the price table")
    assert "second line" not in line and line.endswith("…") and len(line) == 6 + 2 + 120
    reasoned = _llm(content=None, reasoning="The form needs a date first.\nThen submit.")
    assert _line("llm.call", **reasoned) == "[  3] » The form needs a date first."


def test_calls_without_intent_or_from_other_roles_print_nothing() -> None:
    assert _line("llm.call", **_llm(content=None)) is None
    assert _line("llm.call", **_llm(role="summarizer", content="A page about cats")) is None
    assert _line("llm.call", **_llm(role="planner", content='{"done": false}')) is None


def test_action_lines_show_only_the_arguments_the_model_set() -> None:
    args = {"ref": "4:7", "button": "left", "double": False, "hold_ms": 0, "modifiers": []}
    line = _line("action.executed", step=2, action="click", args=args, success=True)
    assert line == "[  2] ✓ click(ref='4:7')"
    set_ = {"ref": "4:7", "button": "right", "double": True, "hold_ms": 0}
    line = _line("action.executed", step=2, action="click", args=set_, success=False, reason="x")
    assert line == "[  2] ✗ click(ref='4:7', button='right', double=True)  x"
    text = {"ref": "1:2", "text": "y" * 80, "clear": True, "submit": True}
    line = _line("action.executed", step=5, action="type", args=text, success=True)
    assert line == f"[  5] ✓ type(ref='1:2', text='{'y' * 38}…, submit=True)"


def test_plan_updated_shows_the_subgoal_and_checklist() -> None:
    checklist = [
        {"id": 1, "text": "Find the flight", "status": "completed"},
        {"id": 2, "text": "Pick a seat", "status": "in_progress"},
        {"id": 3, "text": "Pay", "status": "pending"},
    ]
    line = _line("plan.updated", step=4, subgoal="Pick a seat", done=False, checklist=checklist)
    assert line == (
        "[  4] plan: Pick a seat\n        ☑ Find the flight\n        ▸ Pick a seat\n        ☐ Pay"
    )


def test_status_line_and_summary_carry_the_priced_cost() -> None:
    console = Console(record=True, width=200)
    view = ProgressView("t1", 10, console=console, prices={"gpt-4o": (2.5, 10.0)})
    events = [
        StreamedEvent(seq=1, type="llm.call", data=_llm(content="go")),
        StreamedEvent(seq=2, type="llm.call", data=_llm(role="vision", model="other-model")),
    ]
    view.follow(events)
    assert view.tokens == 2200
    assert view.cost_usd is not None and abs(view.cost_usd - 0.0035) < 1e-9  # other unpriced
    assert "tokens 2200  $0.0035" in view._status().plain
    view.summary({"status": "succeeded", "result": {"answer": "42"}, "usage": {}})
    rows = [line.split() for line in console.export_text().splitlines()]
    assert ["│", "cost_usd", "0.0035", "│"] in rows


def test_without_prices_no_cost_is_shown() -> None:
    view = ProgressView("t1", None, console=Console(record=True), prices={})
    view.follow([StreamedEvent(seq=1, type="llm.call", data=_llm(content="go"))])
    assert view.cost_usd is None and "$" not in view._status().plain
