"""Tool-call parsing: valid calls become Actions, mistakes become feedback for the model."""

from __future__ import annotations

import pytest

from workers.agent.errors import FeedbackError
from workers.agent.protocols import Action, ToolCall
from workers.agent.tools import (
    ARG_MODELS,
    PARSE_ERROR_KEY,
    RAW_ARGUMENTS_KEY,
    WORKER_TOOLS,
    parse_action,
    redacted_args,
)


def call(name: str, **args: object) -> ToolCall:
    return ToolCall("c1", name, args)


def test_every_schema_has_a_validator_and_vice_versa() -> None:
    names = [t["function"]["name"] for t in WORKER_TOOLS]
    assert sorted(names) == sorted(ARG_MODELS)
    for tool in WORKER_TOOLS:
        params = tool["function"]["parameters"]
        assert params["type"] == "object"
        assert set(params["required"]) <= set(params["properties"])


@pytest.mark.parametrize(
    ("tool", "args", "expected"),
    [
        ("click", {"ref": "3:12"}, {"ref": "3:12"}),
        ("click", {"ref": "[3:12]"}, {"ref": "3:12"}),
        ("hover", {"ref": " 4:1 "}, {"ref": "4:1"}),
        (
            "type",
            {"ref": "1:2", "text": "hi", "submit": True},
            {"ref": "1:2", "text": "hi", "submit": True, "clear": True, "secret": False},
        ),
        ("select_option", {"ref": "1:5", "values": ["Order"]}, {"ref": "1:5", "values": ["Order"]}),
        ("press_key", {"key": "Enter"}, {"key": "Enter"}),
        ("scroll", {"direction": "down"}, {"direction": "down"}),
        ("scroll", {"direction": "up", "ref": "2:9"}, {"direction": "up", "ref": "2:9"}),
        ("navigate", {"url": "https://example.com/x"}, {"url": "https://example.com/x"}),
        ("go_back", {}, {}),
        ("snapshot", {"start": 120, "end": 480}, {"start": 120, "end": 480}),
        ("snapshot", {"start": "3:120", "end": "480"}, {"start": 120, "end": 480}),
        ("done", {"answer": "42", "success": True}, {"answer": "42", "success": True}),
    ],
)
def test_valid_calls_parse(tool: str, args: dict, expected: dict) -> None:
    assert parse_action(call(tool, **args)) == Action(tool, expected)


@pytest.mark.parametrize(
    ("tool", "args", "fragment"),
    [
        ("click", {}, "ref: Field required"),
        ("click", {"ref": 12}, "refs look like '3:12'"),
        ("click", {"ref": "btn_3"}, "invalid ref 'btn_3'"),
        ("type", {"ref": "1:2"}, "text: Field required"),
        ("select_option", {"ref": "1:2", "values": []}, "values"),
        ("scroll", {"direction": "left"}, "direction"),
        ("navigate", {"url": "javascript:alert(1)"}, "must start with http"),
        ("done", {"answer": "x"}, "success: Field required"),
        ("snapshot", {"start": 9, "end": 3}, "end must not be smaller"),
        ("snapshot", {"start": "a", "end": 3}, "trimmed"),
    ],
)
def test_invalid_arguments_become_feedback(tool: str, args: dict, fragment: str) -> None:
    with pytest.raises(FeedbackError) as info:
        parse_action(call(tool, **args))
    assert info.value.message.startswith(f"{tool}: ")
    assert fragment in info.value.message
    assert info.value.error == "invalid_tool_call"


def test_unknown_tool_lists_the_real_ones() -> None:
    with pytest.raises(FeedbackError, match=r"unknown tool 'fly'.*click, type"):
        parse_action(call("fly"))


def test_malformed_json_from_the_client_is_fed_back() -> None:
    broken = ToolCall("c1", "click", {PARSE_ERROR_KEY: "Expecting value", RAW_ARGUMENTS_KEY: "{"})
    with pytest.raises(FeedbackError, match=r"not valid JSON.*Expecting value"):
        parse_action(broken)


def test_extra_arguments_are_ignored() -> None:
    action = parse_action(call("click", ref="1:1", reasoning="because"))
    assert action.args == {"ref": "1:1"}


def test_secret_text_is_redacted_for_events() -> None:
    action = parse_action(call("type", ref="1:2", text="hunter2", secret=True))
    assert redacted_args(action)["text"] == "***"
    assert action.args["text"] == "hunter2"
    plain = parse_action(call("type", ref="1:2", text="hello"))
    assert redacted_args(plain)["text"] == "hello"


@pytest.mark.parametrize(
    ("tool", "args", "key", "expected"),
    [
        ("select_option", {"ref": "1:5", "values": "Blue"}, "values", ["Blue"]),
        ("select_option", {"ref": "1:5", "values": 3}, "values", ["3"]),
        ("select_option", {"ref": "1:5", "values": [2, "x"]}, "values", ["2", "x"]),
        ("type", {"ref": "1:2", "text": 42}, "text", "42"),
        ("type", {"ref": "1:2", "text": 2.5}, "text", "2.5"),
        ("done", {"answer": 17, "success": True}, "answer", "17"),
        ("press_key", {"key": "enter"}, "key", "Enter"),
        ("press_key", {"key": "ctrl+a"}, "key", "Control+a"),
        ("press_key", {"key": "ESC"}, "key", "Escape"),
        ("press_key", {"key": "Return"}, "key", "Enter"),
        ("press_key", {"key": "arrowdown"}, "key", "ArrowDown"),
        ("press_key", {"key": "a"}, "key", "a"),
        ("press_key", {"key": "Shift+Tab"}, "key", "Shift+Tab"),
    ],
)
def test_common_model_argument_shapes_are_accepted(
    tool: str, args: dict, key: str, expected: object
) -> None:
    assert parse_action(call(tool, **args)).args[key] == expected


def test_booleans_are_not_taken_for_text() -> None:
    with pytest.raises(FeedbackError):
        parse_action(call("type", ref="1:2", text=True))
