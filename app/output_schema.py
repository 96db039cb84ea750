"""Checking a task's `output_schema` at submission (the worker validates answers against it).

A JSON Schema can make its validator load things: a `$ref` to `http://...` or `file://...`
is fetched by jsonschema's default registry (issue 32, item 1: SSRF and local file reads
from the worker). An output schema must therefore be self-contained, and this module refuses,
naming the JSON pointer of the offending keyword:

- a `$ref` that is not a JSON pointer into the schema itself (`#` or `#/...`), or whose
  target does not exist or is not a schema (dangling and metadata refs);
- `$dynamicRef` / `$recursiveRef` (they resolve through the dynamic scope), `$vocabulary`;
- `$schema` other than a dialect jsonschema knows (its meta-schemas ship with the library),
  and `$schema` or `$id` below the root (an embedded resource moves the base of `#/...`);
- a cycle of `$ref`s that makes no progress: a chain through in-place applicators
  (`$ref`, `allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, `dependentSchemas`)
  that comes back to where it started without descending into the instance;
- more than MAX_DEPTH levels of nesting (the size cap is MAX_OUTPUT_SCHEMA_BYTES in
  app/api/schemas.py).

The worker does not rely on this: it validates with a registry that cannot retrieve
anything (workers/agent/structured.py).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import unquote

from jsonschema import exceptions as schema_exceptions
from jsonschema import validators

MAX_DEPTH = 64  # nesting of objects and arrays in the schema document

# keywords whose value is one subschema / a list of subschemas / a map of name -> subschema
ONE = frozenset(
    {
        "not", "if", "then", "else", "items", "additionalItems", "additionalProperties",
        "unevaluatedItems", "unevaluatedProperties", "contains", "propertyNames",
        "contentSchema",
    }
)  # fmt: skip
MANY = frozenset({"allOf", "anyOf", "oneOf", "prefixItems", "items"})
NAMED = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas", "dependencies"}
)
# applicators that apply their subschemas to the same instance (no progress into it)
IN_PLACE_ONE = frozenset({"not", "if", "then", "else"})
IN_PLACE_MANY = frozenset({"allOf", "anyOf", "oneOf"})
IN_PLACE_NAMED = frozenset({"dependentSchemas", "dependencies"})
REFUSED = {
    "$dynamicRef": "$dynamicRef resolves through the dynamic scope; use a local $ref",
    "$recursiveRef": "$recursiveRef resolves through the dynamic scope; use a local $ref",
    "$vocabulary": "$vocabulary declares vocabularies to load; output schemas may not",
}


class SchemaRefused(ValueError):
    """An output schema that could make its validator load something, or loop."""

    def __init__(self, pointer: str, why: str) -> None:
        super().__init__(f"{pointer or '/'}: {why}")
        self.pointer, self.why = pointer, why


def output_schema_problem(schema: Mapping[str, Any]) -> str | None:
    """Why `schema` is not a usable, self-contained JSON Schema, or None.

    The message starts with the JSON pointer of the offending keyword when there is one."""
    try:
        _check_depth(schema)
        _check_dialect(schema)
        validators.validator_for(schema).check_schema(schema)
        refuse_loading(schema)
    except schema_exceptions.SchemaError as exc:
        return f"{_pointer(exc.absolute_path) or '/'}: not a valid JSON Schema: {exc.message}"
    except SchemaRefused as exc:
        return str(exc)
    return None


def refuse_loading(schema: Mapping[str, Any]) -> None:
    """Raise SchemaRefused for the first keyword that could load something or loop."""
    edges: dict[str, list[tuple[str, str]]] = {}
    for pointer, node in _schemas(schema, ""):
        edges[pointer] = list(_in_place(schema, pointer, node))
    _refuse_cycles(edges)


def resolve_pointer(schema: Any, ref: str) -> tuple[str, Any]:
    """(pointer, target) for a local `#` / `#/...` ref; SchemaRefused when it is not one."""
    if not isinstance(ref, str) or not (ref == "#" or ref.startswith("#/")):
        raise SchemaRefused("", f"$ref {ref!r} is not local to the schema (only '#/...')")
    target: Any = schema
    pointer = unquote(ref[1:])
    for raw in pointer.split("/")[1:]:
        part = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(target, Mapping) and part in target:
            target = target[part]
        elif isinstance(target, list) and part.isdigit() and int(part) < len(target):
            target = target[int(part)]
        else:
            raise SchemaRefused("", f"$ref {ref!r} points at nothing in the schema")
    if not isinstance(target, Mapping | bool):
        raise SchemaRefused("", f"$ref {ref!r} points at a value that is not a schema")
    return pointer, target


def _pointer(path: Any) -> str:
    return "".join("/" + str(p).replace("~", "~0").replace("/", "~1") for p in path)


def _check_depth(schema: Any) -> None:
    stack: list[tuple[Any, int]] = [(schema, 1)]
    while stack:
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise SchemaRefused("", f"nested deeper than {MAX_DEPTH} levels")
        if isinstance(value, Mapping):
            stack.extend((v, depth + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, depth + 1) for v in value)


def _check_dialect(schema: Mapping[str, Any]) -> None:
    dialect = schema.get("$schema")
    if dialect is None:
        return
    if not isinstance(dialect, str) or validators.validator_for(schema, default=None) is None:
        raise SchemaRefused("/$schema", f"$schema {dialect!r} is not a dialect known locally")


def _schemas(schema: Mapping[str, Any], start: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """(pointer, node) of every schema object reachable from the root or a ref target."""
    seen: set[str] = set()
    todo: list[tuple[str, Any]] = [(start, schema)]
    while todo:
        pointer, node = todo.pop()
        if pointer in seen or not isinstance(node, Mapping):
            continue
        seen.add(pointer)
        _refuse_keywords(pointer, node)
        if "$ref" in node:
            try:
                todo.append(resolve_pointer(schema, node["$ref"]))
            except SchemaRefused as exc:
                raise SchemaRefused(f"{pointer}/$ref", exc.why) from None
        todo.extend(_children(pointer, node))
        yield pointer, node


def _refuse_keywords(pointer: str, node: Mapping[str, Any]) -> None:
    for keyword, why in REFUSED.items():
        if keyword in node:
            raise SchemaRefused(f"{pointer}/{keyword}", why)
    if pointer:
        for keyword in ("$id", "$schema"):
            if keyword in node:
                raise SchemaRefused(
                    f"{pointer}/{keyword}", f"{keyword} is allowed only at the schema's root"
                )


def _children(pointer: str, node: Mapping[str, Any]) -> Iterator[tuple[str, Any]]:
    for key, value in node.items():
        here = f"{pointer}/{_pointer([key])[1:]}"
        if key in ONE and isinstance(value, Mapping):
            yield here, value
        elif key in MANY and isinstance(value, list):
            yield from ((f"{here}/{i}", v) for i, v in enumerate(value))
        elif key in NAMED and isinstance(value, Mapping):
            yield from ((f"{here}/{_pointer([k])[1:]}", v) for k, v in value.items())


def _in_place(
    schema: Mapping[str, Any], pointer: str, node: Mapping[str, Any]
) -> Iterator[tuple[str, str]]:
    """(keyword pointer, target pointer) of subschemas applied to the node's own instance."""
    for key, value in node.items():
        here = f"{pointer}/{_pointer([key])[1:]}"
        if key == "$ref":
            yield here, resolve_pointer(schema, value)[0]
        elif key in IN_PLACE_ONE and isinstance(value, Mapping):
            yield here, here
        elif key in IN_PLACE_MANY and isinstance(value, list):
            yield from ((here, f"{here}/{i}") for i in range(len(value)))
        elif key in IN_PLACE_NAMED and isinstance(value, Mapping):
            yield from ((here, f"{here}/{_pointer([k])[1:]}") for k in value)


def _refuse_cycles(edges: Mapping[str, list[tuple[str, str]]]) -> None:
    """Depth-first search over in-place edges; a back edge is a loop without progress."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done
    for root in edges:
        if state.get(root):
            continue
        stack: list[tuple[str, Iterator[tuple[str, str]]]] = [(root, iter(edges[root]))]
        state[root] = 1
        while stack:
            node, out = stack[-1]
            step = next(out, None)
            if step is None:
                state[node] = 2
                stack.pop()
                continue
            keyword, target = step
            if state.get(target) == 1:
                raise SchemaRefused(keyword, "$ref cycle that never descends into the value")
            if not state.get(target) and target in edges:
                state[target] = 1
                stack.append((target, iter(edges[target])))
