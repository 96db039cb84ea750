"""What every role of the brain is made of (seed 000 §4.1): a prompt, tools or a schema, a parser.

A `Role` calls the model once through the LLM protocol and parses the reply into a frozen
value; callers meter nothing themselves (the LLM they are given is a MeteredLLM). Replies
that should be JSON go through `parse_json_object`, seed 002's 4-level fallback for models
that ignore `response_format`: the raw text, a ```json fence, any ``` fence, then the first
balanced {...} in the text.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from workers.agent.protocols import LLM, LLMReply

Message = dict[str, Any]
_JSON_FENCE = re.compile(r"```json\s*\n?(.*?)```", re.DOTALL | re.IGNORECASE)
_ANY_FENCE = re.compile(r"```[\w-]*\s*\n?(.*?)```", re.DOTALL)


def _loads_object(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except (json.JSONDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _first_balanced(text: str) -> str | None:
    """The first {...} whose braces balance outside JSON strings."""
    start = text.find("{")
    while start != -1:
        depth, in_string, escaped = 0, False, False
        for index in range(start, len(text)):
            char = text[index]
            if in_string:
                escaped = not escaped and char == "\\"
                if char == '"' and not escaped:
                    in_string = False
                if char != "\\":
                    escaped = False
                continue
            if char == '"':
                in_string = True
            elif char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    return text[start : index + 1]
        start = text.find("{", start + 1)
    return None


def parse_json_object(text: str | None) -> dict[str, Any] | None:
    """Seed 002's 4-level JSON fallback: raw -> ```json -> ``` -> brace extraction."""
    if not text or not text.strip():
        return None
    candidates = [text.strip()]
    candidates += [m.group(1).strip() for m in _JSON_FENCE.finditer(text)]
    candidates += [m.group(1).strip() for m in _ANY_FENCE.finditer(text)]
    balanced = _first_balanced(text)
    if balanced:
        candidates.append(balanced)
    for candidate in candidates:
        value = _loads_object(candidate)
        if value is not None:
            return value
    return None


def json_schema_format(name: str, schema: Mapping[str, Any]) -> dict[str, Any]:
    """An OpenAI `response_format` asking for JSON that follows `schema`."""
    return {"type": "json_schema", "json_schema": {"name": name, "schema": dict(schema)}}


def as_text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value.strip()
    return json.dumps(value, ensure_ascii=False)


def as_bool(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "1", "done")
    return bool(value)


def as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [line.strip(" -*\t") for line in value.splitlines() if line.strip(" -*\t")]
    if isinstance(value, Sequence):
        return [as_text(v) for v in value if as_text(v)]
    return [as_text(value)]


@dataclass(frozen=True)
class RoleCall:
    """One role's request: which role, its messages, and tools or a response schema."""

    role: str
    messages: list[Message]
    tools: tuple[Mapping[str, Any], ...] | None = None
    tool_choice: str | None = None
    response_format: Mapping[str, Any] | None = None

    async def send(self, llm: LLM) -> LLMReply:
        extra = {"response_format": self.response_format} if self.response_format else {}
        return await llm.chat(
            self.role, self.messages, tools=self.tools, tool_choice=self.tool_choice, **extra
        )
