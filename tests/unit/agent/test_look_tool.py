"""The `look` tool's place in the registry: offered only with a vision model, validated args."""

from __future__ import annotations

import pytest

from workers.agent.errors import FeedbackError
from workers.agent.protocols import ToolCall
from workers.agent.toolerrors import HINTS, ToolError
from workers.agent.tools import TOOLS, parse_action, worker_tools


def _names(tools: tuple[dict, ...]) -> set[str]:
    return {t["function"]["name"] for t in tools}


def test_look_is_offered_only_when_a_vision_model_is_configured() -> None:
    assert "look" not in _names(worker_tools())
    assert "look" in _names(worker_tools(vision=True))
    schema = TOOLS["look"].schema["function"]["parameters"]
    assert schema["required"] == ["question"] and "ref" in schema["properties"]


def test_look_arguments_are_validated() -> None:
    action = parse_action(ToolCall("c1", "look", {"ref": "[3:12]", "question": "Which colour?"}))
    assert action.args == {"ref": "3:12", "question": "Which colour?"}
    screen = parse_action(ToolCall("c2", "look", {"question": "What does the chart show?"}))
    assert "ref" not in screen.args
    with pytest.raises(FeedbackError, match="question"):
        parse_action(ToolCall("c3", "look", {"ref": "3:12"}))


def test_look_errors_have_recovery_hints() -> None:
    for code in (ToolError.vision_unavailable, ToolError.screenshot_failed):
        assert code in TOOLS["look"].errors and HINTS[code]
