"""Argument models of the workflow tools and modifier clicks: the shapes models send are
accepted, the ambiguous ones refused with a message the model can act on."""

from __future__ import annotations

import pytest

from workers.agent.errors import FeedbackError
from workers.agent.protocols import ToolCall
from workers.agent.tools import parse_action


def parse(name: str, **args: object) -> dict[str, object]:
    return dict(parse_action(ToolCall("c1", name, args)).args)


def test_fill_form_accepts_a_mapping_lists_booleans_and_numbers() -> None:
    args = parse(
        "fill_form",
        fields={"[1:2]": "Ada", "1:3": True, "1:4": 42, "1:5": ["Red", "Blue"]},
        submit=True,
    )
    assert args["fields"] == [
        {"ref": "1:2", "value": "Ada"},
        {"ref": "1:3", "value": "true"},
        {"ref": "1:4", "value": "42"},
        {"ref": "1:5", "values": ["Red", "Blue"]},
    ]
    assert args["submit"] is True


def test_fill_form_field_needs_exactly_one_of_value_and_values() -> None:
    with pytest.raises(FeedbackError, match="give value or values"):
        parse("fill_form", fields=[{"ref": "1:2"}])
    with pytest.raises(FeedbackError, match="fields"):
        parse("fill_form", fields=[])


def test_choose_option_and_search_spellings() -> None:
    assert parse("choose_option", ref="2:7", value="France") == {"ref": "2:7", "option": "France"}
    found = parse("search", ref="2:1", text="laptop", suggestion="Laptop stand")
    assert found == {"ref": "2:1", "query": "laptop", "pick": "Laptop stand"}


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("shift", ["Shift"]),
        ("ctrl+shift", ["Control", "Shift"]),
        (["cmd", "Alt"], ["Meta", "Alt"]),
    ],
)
def test_click_modifiers_are_normalized(given: object, expected: list[str]) -> None:
    assert parse("click", ref="1:1", modifiers=given)["modifiers"] == expected


def test_unknown_modifier_is_refused() -> None:
    with pytest.raises(FeedbackError, match="modifiers"):
        parse("click", ref="1:1", modifiers=["Hyper"])


def test_type_at_needs_a_target() -> None:
    assert parse("browser_type_at", vision_index=3, text="42") == {"index": 3, "text": "42"}
    with pytest.raises(FeedbackError, match="vision index"):
        parse("type_at", text="42")
