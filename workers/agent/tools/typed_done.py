"""`done` typed by the task's `output_schema` (issue 23 §3).

Without a schema `done` takes `answer` and `success` (registry.py). With one, its function
gains `data`, whose JSON Schema is the task's own, so the model fills the result in the
tool call instead of describing it in words. When the whole parameter object fits OpenAI's
strict subset (every object closes `additionalProperties` and requires all its properties;
only keywords strict mode accepts), the function is marked `strict` and a conforming endpoint
can only emit valid data. Otherwise the schema is still given, and the validation and repair
round of workers/agent/judge/structured.py catch what the model gets wrong. `json_schema_format`
is the same schema as a `response_format` for that repair call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

# keywords a strict schema may use (OpenAI structured outputs: supported subset)
STRICT_KEYWORDS = frozenset(
    {
        "type",
        "properties",
        "required",
        "additionalProperties",
        "items",
        "enum",
        "const",
        "anyOf",
        "description",
        "title",
        "$defs",
        "$ref",
        "pattern",
        "format",
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minItems",
        "maxItems",
    }
)
DATA_DESCRIPTION = "the result, as JSON valid against the task's output schema"


def strict_compatible(schema: Mapping[str, Any]) -> bool:
    """True when `schema` is an object schema within the strict subset."""
    return schema.get("type") == "object" and _strict(schema)


def _strict(node: Any) -> bool:
    if isinstance(node, list):
        return all(_strict(n) for n in node)
    if not isinstance(node, Mapping):
        return True
    if not set(node) <= STRICT_KEYWORDS:
        return False
    kinds = node.get("type")
    is_object = kinds == "object" or (isinstance(kinds, list) and "object" in kinds)
    if is_object or "properties" in node:
        props = node.get("properties", {})
        if node.get("additionalProperties") is not False:
            return False
        if set(node.get("required", ())) != set(props):
            return False
        if not all(_strict(sub) for sub in props.values()):
            return False
    for key in ("items", "anyOf", "$defs"):
        value = node.get(key)
        if value is not None and not _strict(list(value.values()) if key == "$defs" else value):
            return False
    return True


def typed_done(plain: Mapping[str, Any], schema: Mapping[str, Any]) -> dict[str, Any]:
    """The `done` tool of `plain` (its registry schema) with `data` typed by `schema`."""
    function = dict(plain["function"])
    params = dict(function["parameters"])
    params["properties"] = {**params["properties"], "data": dict(schema)}
    params["required"] = [*params.get("required", ()), "data"]
    params["additionalProperties"] = False
    function["parameters"] = params
    function["description"] = (
        f"{function['description']} Put the result in `data` ({DATA_DESCRIPTION}); "
        "`answer` says it in one sentence."
    )
    if strict_compatible(params):
        function["strict"] = True
    return {**plain, "function": function}


def json_schema_format(schema: Mapping[str, Any]) -> dict[str, Any]:
    """`response_format` asking for JSON valid against `schema` (strict when it fits)."""
    return {
        "type": "json_schema",
        "json_schema": {
            "name": "task_result",
            "schema": dict(schema),
            "strict": strict_compatible(schema),
        },
    }
