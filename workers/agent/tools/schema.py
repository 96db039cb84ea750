"""OpenAI function-calling schemas generated from the tools' pydantic argument models.

model_json_schema() output is cleaned for the function format: titles dropped, `$defs`
references inlined, `X | None` written as plain X (optional = not in `required`). Compact
(issue 22): lower bounds and string lengths are left out of what the model reads; upper
bounds of numbers and list lengths stay (issue 31 item 3: `wait` over 10 s, `bulk` over 60
actions, `pointer` over 100 steps, `scroll` over 20,000 px each cost a step when found by
failing). The argument model enforces all of them; a call out of bounds names the bound.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

_BOUNDS = ("minimum", "exclusiveMinimum")
_LENGTHS = ("minLength", "maxLength", "minItems")
_DROP = frozenset({"title", "default", "additionalProperties", *_BOUNDS, *_LENGTHS})


def _clean(node: Any, defs: dict[str, Any]) -> Any:
    if isinstance(node, list):
        return [_clean(n, defs) for n in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return _clean(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
    variants = node.get("anyOf")
    if isinstance(variants, list):
        kept = [v for v in variants if v.get("type") != "null"]
        if len(kept) == 1:
            extra = {k: v for k, v in node.items() if k != "anyOf"}
            return _clean({**kept[0], **extra}, defs)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "properties":  # field names, not schema keywords: keep every one
            out[key] = {name: _clean(v, defs) for name, v in value.items()}
        elif key not in _DROP and key != "$defs":
            out[key] = _clean(value, defs)
    return out


def parameters(model: type[BaseModel]) -> dict[str, Any]:
    """The `parameters` object of a function tool for this argument model."""
    raw = model.model_json_schema()
    cleaned = _clean(raw, raw.get("$defs", {}))
    params: dict[str, Any] = {"type": "object", "properties": cleaned.get("properties", {})}
    if cleaned.get("required"):
        params["required"] = list(cleaned["required"])
    return params


def openai_tool(name: str, description: str, model: type[BaseModel]) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": parameters(model)},
    }
