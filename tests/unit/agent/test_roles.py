"""Role contracts: the 4-level JSON fallback, the Planner's verdict, the Worker's notes."""

from __future__ import annotations

from workers.agent.memory.ledger import Ledger
from workers.agent.protocols import LLMReply, Observation, ToolCall
from workers.agent.roles.base import parse_json_object
from workers.agent.roles.planner import (
    PLANNER_SCHEMA,
    RESPONSE_FORMAT,
    CompletionClaim,
    Planner,
    apply_verdict,
    parse_verdict,
)
from workers.agent.roles.worker import parse_worker_reply
from workers.agent.testing import FakeLLM


def text(content: str | None, *calls: ToolCall) -> LLMReply:
    return LLMReply(content, calls, 10, 5, "m", 0.0, "stop")


def test_json_fallback_levels() -> None:
    assert parse_json_object('{"a": 1}') == {"a": 1}  # raw
    assert parse_json_object('Sure:\n```json\n{"a": 2}\n```') == {"a": 2}  # ```json
    assert parse_json_object('```\n{"a": 3}\n```') == {"a": 3}  # ```
    assert parse_json_object('I think {"a": {"b": "}"}} is it') == {"a": {"b": "}"}}  # braces
    assert parse_json_object("no json here") is None
    assert parse_json_object("[1, 2]") is None


def test_planner_verdict_is_parsed_tolerantly() -> None:
    verdict = parse_verdict(
        text(
            'Here you go ```json\n{"observation": "cart page", "done": "true", '
            '"next_steps": "open cart\\npay", "final_answer": 42, '
            '"checklist_update": {"id": "2", "status": "completed"}}```'
        )
    )
    assert verdict.parsed and verdict.done and verdict.success
    assert verdict.next_steps == ("open cart", "pay")
    assert verdict.final_answer == "42" and verdict.checklist_update == (2, "completed")
    broken = parse_verdict(text("I could not decide"))
    assert not broken.parsed and not broken.done and broken.next_steps == ()
    bad_update = parse_verdict(text('{"checklist_update": {"id": "x", "status": "completed"}}'))
    assert bad_update.checklist_update is None


def test_planner_schema_has_the_paper_fields() -> None:
    required = set(PLANNER_SCHEMA["required"])
    assert required == {
        "observation",
        "challenges",
        "done",
        "next_steps",
        "final_answer",
        "reasoning",
    }
    assert RESPONSE_FORMAT["type"] == "json_schema"


def test_planner_owns_plan_subgoal_and_checklist() -> None:
    ledger = Ledger("buy a lamp")
    apply_verdict(
        ledger,
        parse_verdict(
            text(
                '{"next_steps": ["search lamp", "add to cart"], '
                '"checklist": ["lamp found", "lamp in cart"]}'
            )
        ),
    )
    assert ledger.plan == ("search lamp", "add to cart") and ledger.subgoal == "search lamp"
    assert [i.text for i in ledger.checklist] == ["lamp found", "lamp in cart"]
    # a second checklist is ignored; one item update is applied
    apply_verdict(
        ledger,
        parse_verdict(
            text('{"checklist": ["other"], "checklist_update": {"id": 1, "status": "completed"}}')
        ),
    )
    assert [(i.text, i.status) for i in ledger.checklist] == [
        ("lamp found", "completed"),
        ("lamp in cart", "pending"),
    ]


async def test_planner_call_uses_response_format_and_sees_the_claim() -> None:
    llm = FakeLLM([text('{"done": true, "final_answer": "ok"}')], side={})
    ledger = Ledger("find the price")
    ledger.set_checklist(["price read", "price reported"])
    page = Observation("http://s/", "Shop", '[1:1] button "Buy"', 1)
    verdict = await Planner(llm).review(
        ledger, "<task>find</task>", page, CompletionClaim("$3", True, 2)
    )
    assert verdict.done and verdict.final_answer == "ok"
    role, messages, response_format = llm.calls[0]
    assert role == "planner" and response_format == RESPONSE_FORMAT
    prompt = messages[-1]["content"]
    assert '"answer": "$3"' in prompt and '[1:1] button "Buy"' in prompt
    ledger_message = messages[2]
    assert ledger_message["role"] == "system" and "<ledger>" in ledger_message["content"]
    assert "[ ] 1. price read" in ledger_message["content"]


def test_worker_notes_from_content_json() -> None:
    turn = parse_worker_reply(
        text(
            '{"evaluation_previous_goal": "Failed: no results", "memory": "price is $3", '
            '"next_goal": "open cart", "facts": {"price": "$3"}, '
            '"checklist": {"id": 1, "status": "completed"}}',
            ToolCall("c1", "click", {"ref": "1:2"}),
        )
    )
    assert turn.calls == (ToolCall("c1", "click", {"ref": "1:2"}),) and not turn.from_text
    notes = turn.notes
    assert (notes.evaluation, notes.memory, notes.next_goal) == (
        "Failed: no results",
        "price is $3",
        "open cart",
    )
    assert notes.facts == (("price", "$3"),) and notes.checklist == (1, "completed")


def test_worker_notes_in_tool_arguments_are_stripped_from_the_call() -> None:
    call = ToolCall("c1", "click", {"ref": "1:2", "memory": "clicked sort", "next_goal": "read"})
    turn = parse_worker_reply(text(None, call))
    assert turn.calls[0].arguments == {"ref": "1:2"}
    assert (turn.notes.memory, turn.notes.next_goal) == ("clicked sort", "read")


def test_actions_written_as_text_are_parsed() -> None:
    flat = parse_worker_reply(
        text('I will click.\n```json\n{"action": "click", "ref": "3:4"}\n```')
    )
    assert flat.from_text and flat.calls[0].name == "click"
    assert flat.calls[0].arguments == {"ref": "3:4"}
    nested = parse_worker_reply(
        text(
            '{"actions": [{"name": "type", "arguments": {"ref": "1:1", "text": "x"}}, '
            '{"tool": "click", "args": {"ref": "1:2"}}], "memory": "m"}'
        )
    )
    assert [c.name for c in nested.calls] == ["type", "click"] and nested.notes.memory == "m"
    plain = parse_worker_reply(text("I am thinking about it"))
    assert plain.calls == () and not plain.from_text
    notes_only = parse_worker_reply(text('{"memory": "just notes"}'))
    assert notes_only.calls == ()
