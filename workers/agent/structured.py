"""Structured results: a task's answer as JSON valid against its `output_schema`.

The model learns the schema with the instruction (`schema_note`) and finishes with `done`
carrying JSON. After the run, `settle` parses the answer the way seed 002 parses model JSON
(raw text, a ```json fence, any fence, the first balanced {...}) and validates it with
`jsonschema`. A mismatch goes back to the model once (one repair call that sees the task,
the schema, the answer and the validation errors); a second mismatch fails the task with
`output_invalid`. Only successful runs are settled: a failed run has no result to shape.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from jsonschema import validators

from app.contracts import ErrorCode, TaskStatus
from workers.agent import prompts, textcut
from workers.agent.protocols import LLM, AgentOutcome
from workers.agent.roles.base import RoleCall, parse_json_object

REPAIR_ROLE = "worker"
MAX_ERRORS = 5
NOT_JSON = "the answer is not JSON"


@dataclass(frozen=True)
class Checked:
    """One validation of an answer: the parsed value (if any) and what is wrong with it."""

    value: Any
    errors: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.errors


def schema_note(schema: Mapping[str, Any]) -> str:
    """What the instruction gains so the model's `done` carries the JSON."""
    text = json.dumps(schema, ensure_ascii=False, indent=1)
    return "\n\n" + prompts.render("output_schema_note.md", schema=text)


def parse_json(text: str | None) -> tuple[bool, Any]:
    """(found, value): the raw text as any JSON value, else seed 002's object fallback."""
    if not text or not text.strip():
        return False, None
    try:
        return True, json.loads(text.strip())
    except (json.JSONDecodeError, ValueError):
        pass
    value = parse_json_object(text)  # ```json fence, any fence, first balanced {...}
    return (value is not None), value


def check(text: str | None, schema: Mapping[str, Any]) -> Checked:
    """Parse `text` and validate it against `schema` (errors carry their JSON path)."""
    found, value = parse_json(text)
    if not found:
        return Checked(None, (NOT_JSON,))
    validator = validators.validator_for(schema)(schema)
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    messages = tuple(textcut.cut(f"{e.json_path}: {e.message}", 300) for e in errors[:MAX_ERRORS])
    return Checked(value, messages)


def _repair_call(
    instruction: str, schema: Mapping[str, Any], answer: str, why: Checked
) -> RoleCall:
    messages = prompts.exchange(
        "output_repair_system.md",
        "output_repair_request.md",
        instruction=instruction,
        schema=json.dumps(schema, ensure_ascii=False),
        answer=answer,
        errors="\n".join(f"- {e}" for e in why.errors),
    )
    fmt = {"type": "json_object"} if schema.get("type") == "object" else None
    return RoleCall(REPAIR_ROLE, messages, response_format=fmt)


async def settle(
    outcome: AgentOutcome, schema: Mapping[str, Any] | None, llm: LLM, instruction: str
) -> AgentOutcome:
    """The outcome with `data` set from a valid answer; one repair round, then output_invalid.

    `llm` should be metered: the repair call is a model call of the run like any other.
    """
    if not schema or not outcome.success:
        return outcome
    first = check(outcome.answer, schema)
    if first.ok:
        return replace(outcome, data=first.value)
    reply = await _repair_call(instruction, schema, outcome.answer or "", first).send(llm)
    second = check(reply.content, schema)
    if second.ok:
        return replace(outcome, data=second.value)
    return replace(
        outcome,
        success=False,
        status=TaskStatus.failed.value,
        error=ErrorCode.output_invalid.value,
        reason="the answer does not match output_schema after one repair: "
        + "; ".join(second.errors),
    )
