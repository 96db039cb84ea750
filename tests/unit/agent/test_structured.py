"""Structured results: schema note, JSON parsing, validation, the one repair round."""

from __future__ import annotations

import json

from app.output_schema import output_schema_problem as schema_problem
from workers.agent.errors import LLMRejected
from workers.agent.judge.structured import (
    NOT_JSON,
    check,
    parse_json,
    schema_note,
    settle,
)
from workers.agent.protocols import AgentOutcome, LLMReply
from workers.agent.testing import FakeLLM, message_text

SCHEMA = {
    "type": "object",
    "properties": {"title": {"type": "string"}, "price": {"type": "number"}},
    "required": ["title", "price"],
    "additionalProperties": False,
}


def outcome(answer: str | None, success: bool = True) -> AgentOutcome:
    status = "succeeded" if success else "failed"
    return AgentOutcome(answer, success, status, 3, 3, 300, 30)


def text_reply(content: str) -> LLMReply:
    return LLMReply(content, (), 40, 12, "fake-model", 0.01, "stop")


def test_schema_problem_names_the_fault() -> None:
    assert schema_problem(SCHEMA) is None
    assert "is not valid" in (schema_problem({"type": "nonsense"}) or "")


def test_schema_note_carries_the_schema() -> None:
    note = schema_note(SCHEMA)
    assert '"required"' in note and "done" in note


def test_parse_json_takes_raw_values_fences_and_embedded_objects() -> None:
    assert parse_json("[1, 2]") == (True, [1, 2])
    assert parse_json('Here: ```json\n{"a": 1}\n```') == (True, {"a": 1})
    assert parse_json('The result is {"a": {"b": "}"}} as asked') == (True, {"a": {"b": "}"}})
    assert parse_json("no json here") == (False, None)
    assert parse_json("") == (False, None)


def test_check_reports_paths_of_mismatches() -> None:
    good = check('{"title": "Lamp", "price": 12.5}', SCHEMA)
    assert good.ok and good.value == {"title": "Lamp", "price": 12.5}
    bad = check('{"title": "Lamp", "price": "cheap"}', SCHEMA)
    assert not bad.ok and bad.errors[0].startswith("$.price:")
    assert check("Lamp, 12.5 EUR", SCHEMA).errors == (NOT_JSON,)


async def test_valid_answer_becomes_data_without_a_model_call() -> None:
    llm = FakeLLM([])
    settled = await settle(outcome('{"title": "Lamp", "price": 3}'), SCHEMA, llm, "find it")
    assert settled.success and settled.data == {"title": "Lamp", "price": 3}
    assert llm.calls == []


async def test_mismatch_is_repaired_once_by_the_model() -> None:
    llm = FakeLLM([text_reply('{"title": "Lamp", "price": 12.5}')])
    settled = await settle(outcome("The Lamp costs 12.5 EUR"), SCHEMA, llm, "price of the lamp")
    assert settled.success and settled.status == "succeeded"
    assert settled.data == {"title": "Lamp", "price": 12.5}
    role, messages, response_format = llm.calls[0]
    prompt = message_text(messages)
    assert role == "worker" and response_format is not None
    assert response_format["type"] == "json_schema"
    assert response_format["json_schema"]["schema"] == SCHEMA
    assert "The Lamp costs 12.5 EUR" in prompt and "price of the lamp" in prompt
    assert NOT_JSON in prompt and json.dumps(SCHEMA) in prompt


async def test_second_mismatch_fails_with_output_invalid() -> None:
    llm = FakeLLM([text_reply('{"title": "Lamp"}')])
    settled = await settle(outcome('{"price": 1}'), SCHEMA, llm, "find it")
    assert (settled.status, settled.success, settled.error) == ("failed", False, "output_invalid")
    assert "'price' is a required property" in settled.reason
    assert settled.data is None and len(llm.calls) == 1


async def test_invalid_typed_data_is_not_kept_when_the_task_fails() -> None:
    """issue 37 §5: `done` gave `data` that misses a required field and the repair did not
    fix it; the failed task must not carry the invalid value as its result.data."""
    from dataclasses import replace

    llm = FakeLLM([text_reply('{"title": "Lamp"}')])
    given = replace(outcome("the lamp"), data={"title": "Lamp"})
    settled = await settle(given, SCHEMA, llm, "find it")
    assert (settled.status, settled.error) == ("failed", "output_invalid")
    assert settled.data is None


async def test_failed_runs_and_schemaless_tasks_are_left_alone() -> None:
    llm = FakeLLM([])
    failed = outcome("could not", success=False)
    assert await settle(failed, SCHEMA, llm, "x") is failed
    plain = outcome("free text")
    assert await settle(plain, None, llm, "x") is plain
    assert llm.calls == []


async def test_endpoint_without_json_schema_gets_json_object_for_the_repair() -> None:
    refused = LLMRejected("the LLM endpoint answered 400: response_format json_schema")
    llm = FakeLLM([refused, text_reply('{"title": "Lamp", "price": 12.5}')])
    settled = await settle(outcome("The Lamp costs 12.5 EUR"), SCHEMA, llm, "price of the lamp")
    assert settled.success and settled.data == {"title": "Lamp", "price": 12.5}
    assert [fmt["type"] for _, _, fmt in llm.calls if fmt] == ["json_schema", "json_object"]
