"""A model double that can only emit what the JSON Schema in its request allows.

Like a model behind strict function calling or `response_format: json_schema`: when the `done`
tool it is offered types `data`, it finishes with data built from that schema; when a call
carries `response_format: json_schema`, its content is built from that schema. Offered
neither, it can only write prose (`done` with a prose answer; `{"answer": prose}` under
`json_object`), which no task schema accepts.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from workers.agent.protocols import LLMReply, ToolCall
from workers.agent.testing.llms import PLANNER_SIDE, Format, Responder, SideRolesLLM, Tools


def instance(schema: Mapping[str, Any]) -> Any:
    """A value valid against `schema` (the subset task schemas use: types, enum, const,
    properties, items, anyOf/oneOf)."""
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return schema["enum"][0]
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            return instance(schema[key][0])
    kind = schema.get("type", "object")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if kind == "object":
        props = schema.get("properties", {})
        return {name: instance(sub) for name, sub in props.items()}
    if kind == "array":
        return [instance(schema.get("items", {"type": "string"}))]
    return {"string": "text", "number": 1.5, "integer": 1, "boolean": True, "null": None}[kind]


class SchemaBoundLLM(SideRolesLLM):
    """Records every call as (role, tools, response_format); answers from the schemas."""

    def __init__(self, prose: str = "Found it.", side: Mapping[str, Responder] | None = None):
        self.prose = prose
        self.side = dict(PLANNER_SIDE if side is None else side)
        self.calls: list[tuple[str, Tools, Format]] = []
        self._tools: Tools = None
        self._format: Format = None

    async def chat(
        self,
        role: str,
        messages: Sequence[Mapping[str, Any]],
        tools: Tools = None,
        tool_choice: str | None = None,
        response_format: Format = None,
    ) -> LLMReply:
        self._tools = tools
        return await super().chat(role, messages, tools, tool_choice, response_format)

    def record(
        self, role: str, messages: Sequence[Mapping[str, Any]], response_format: Format
    ) -> None:
        self.calls.append((role, self._tools, response_format))
        self._format = response_format

    async def scripted(
        self, role: str, messages: Sequence[Mapping[str, Any]], tools: Tools
    ) -> LLMReply:
        fmt = self._format or {}
        if fmt.get("type") == "json_schema":
            content = json.dumps(instance(fmt["json_schema"]["schema"]))
            return LLMReply(content, (), 60, 20, "schema-bound", 0.01, "stop")
        if fmt.get("type") == "json_object":
            content = json.dumps({"answer": self.prose})
            return LLMReply(content, (), 60, 20, "schema-bound", 0.01, "stop")
        args: dict[str, Any] = {"answer": self.prose, "success": True}
        done = next((t for t in tools or () if t["function"]["name"] == "done"), None)
        typed = (done or {}).get("function", {}).get("parameters", {}).get("properties", {})
        if "data" in typed:
            args["data"] = instance(typed["data"])
        call = ToolCall("c1", "done", args)
        return LLMReply(None, (call,), 100, 10, "schema-bound", 0.01, "tool_calls")
