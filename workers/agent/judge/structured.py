"""Structured results: a task's answer as JSON valid against its `output_schema`.

The model gets the schema twice: with the instruction (`schema_note`) and as the type of
`done`'s `data` parameter (tools/typed_done.py, strict function calling when the schema
fits the strict subset). After the run, `settle` validates `data` with `jsonschema`; a run
that finished without `data` has its answer parsed the way seed 002 parses model JSON (raw
text, a ```json fence, any fence, the first balanced {...}). A mismatch goes back to the
model once: one repair call that sees the task, the schema, the answer and the validation
errors, asking with `response_format: json_schema` (plain `json_object` when the endpoint
refuses that); a second mismatch fails the task with `output_invalid`. Only successful runs
are settled: a failed run has no result to shape.

The schema never makes the worker load anything (issue 32, item 1): it is checked again
with app/output_schema.py (the API refuses the same at submission), and validation
resolves `$ref`s in a `referencing` registry whose retrieve refuses every URI, so a
`http://` or `file://` ref that got past both is an unresolvable ref, never a fetch.
A schema that cannot be used fails the task with `output_invalid` and says why.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from jsonschema import validators
from referencing import Registry, Resource
from referencing.exceptions import NoSuchResource, Unresolvable

from app.contracts import ErrorCode, TaskStatus
from app.output_schema import output_schema_problem
from workers.agent import prompts, textcut
from workers.agent.errors import LLMRejected
from workers.agent.protocols import LLM, AgentOutcome, LLMReply
from workers.agent.roles.base import RoleCall, parse_json_object
from workers.agent.tools.typed_done import json_schema_format

REPAIR_ROLE = "worker"
MAX_ERRORS = 5
NOT_JSON = "the answer is not JSON"
UNUSABLE = "output_schema cannot be used"


class SchemaUnusable(ValueError):
    """The task's output_schema refers to something outside itself, or loops."""


def _never_retrieve(uri: str) -> Resource[Any]:
    raise NoSuchResource(ref=uri)  # type: ignore[call-arg]  # nothing is ever loaded


NO_RETRIEVAL: Registry[Any] = Registry(retrieve=_never_retrieve)  # type: ignore[call-arg]


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
    return check_value(value, schema)


def check_value(value: Any, schema: Mapping[str, Any]) -> Checked:
    """Validate a value the model gave as JSON already (`done`'s data).

    SchemaUnusable when the schema's refs lead outside it or loop."""
    validator = validators.validator_for(schema)(schema, registry=NO_RETRIEVAL)
    try:
        errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    except Unresolvable as exc:
        raise SchemaUnusable(f"a $ref that is not in the schema: {exc}") from exc
    except RecursionError as exc:
        raise SchemaUnusable("$refs that loop") from exc
    messages = tuple(textcut.cut(f"{e.json_path}: {e.message}", 300) for e in errors[:MAX_ERRORS])
    return Checked(value, messages)


def _repair_call(
    instruction: str,
    schema: Mapping[str, Any],
    answer: str,
    why: Checked,
    fmt: Mapping[str, Any] | None,
) -> RoleCall:
    messages = prompts.exchange(
        "output_repair_system.md",
        "output_repair_request.md",
        instruction=instruction,
        schema=json.dumps(schema, ensure_ascii=False),
        answer=answer,
        errors="\n".join(f"- {e}" for e in why.errors),
    )
    return RoleCall(REPAIR_ROLE, messages, response_format=fmt)


async def _repair(
    llm: LLM, instruction: str, schema: Mapping[str, Any], answer: str, why: Checked
) -> LLMReply:
    """The one repair call: schema as response_format, json_object if the endpoint refuses."""
    try:
        return await _repair_call(
            instruction, schema, answer, why, json_schema_format(schema)
        ).send(llm)
    except LLMRejected:
        plain = {"type": "json_object"} if schema.get("type") == "object" else None
        return await _repair_call(instruction, schema, answer, why, plain).send(llm)


def _shown(outcome: AgentOutcome) -> str:
    """What the model finished with, as the repair call sees it."""
    if outcome.data is None:
        return outcome.answer or ""
    data = json.dumps(outcome.data, ensure_ascii=False)
    return f"{outcome.answer or ''}\ndata: {data}".strip()


async def settle(
    outcome: AgentOutcome, schema: Mapping[str, Any] | None, llm: LLM, instruction: str
) -> AgentOutcome:
    """The outcome with `data` set from a valid answer; one repair round, then output_invalid.

    `llm` should be metered: the repair call is a model call of the run like any other.
    """
    if not schema or not outcome.success:
        return outcome
    problem = output_schema_problem(schema)
    if problem:
        return _failed(outcome, f"{UNUSABLE}: {problem}")
    try:
        return await _settle(outcome, schema, llm, instruction)
    except SchemaUnusable as exc:
        return _failed(outcome, f"{UNUSABLE}: {exc}")


async def _settle(
    outcome: AgentOutcome, schema: Mapping[str, Any], llm: LLM, instruction: str
) -> AgentOutcome:
    if outcome.data is not None:
        first = check_value(outcome.data, schema)
    else:
        first = check(outcome.answer, schema)
    if first.ok:
        return replace(outcome, data=first.value)
    reply = await _repair(llm, instruction, schema, _shown(outcome), first)
    second = check(reply.content, schema)
    if second.ok:
        return replace(outcome, data=second.value)
    return _failed(
        outcome,
        "the answer does not match output_schema after one repair: " + "; ".join(second.errors),
    )


def _failed(outcome: AgentOutcome, reason: str) -> AgentOutcome:
    return replace(
        outcome,
        data=None,  # a value that does not match the schema is never the task's result
        success=False,
        status=TaskStatus.failed.value,
        error=ErrorCode.output_invalid.value,
        reason=reason,
    )
