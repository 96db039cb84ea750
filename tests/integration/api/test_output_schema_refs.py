"""POST /v1/tasks refuses an output_schema that could make the worker load something
(issue 32, item 1): 422 problem details whose error names the JSON pointer of the keyword."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

DEEP: dict[str, Any] = {"type": "string"}
for _ in range(70):
    DEEP = {"not": DEEP}

BAD = [  # (schema, JSON pointer the problem names)
    ({"properties": {"a": {"$ref": "http://127.0.0.1:8320/s.json"}}}, "/properties/a/$ref"),
    ({"properties": {"a": {"$ref": "file:///etc/passwd"}}}, "/properties/a/$ref"),
    ({"items": {"$ref": "other.json#/x"}}, "/items/$ref"),
    ({"$ref": "#/$defs/missing"}, "/$ref"),
    ({"title": "t", "properties": {"a": {"$ref": "#/title"}}}, "/properties/a/$ref"),
    ({"$defs": {"a": {"$id": "http://127.0.0.1/a.json"}}}, "/$defs/a/$id"),
    ({"$schema": "http://127.0.0.1:8320/meta.json"}, "/$schema"),
    ({"properties": {"a": {"$schema": "https://json-schema.org/draft/2020-12/schema"}}},
     "/properties/a/$schema"),
    ({"properties": {"a": {"$dynamicRef": "#node"}}}, "/properties/a/$dynamicRef"),
    ({"$schema": "https://json-schema.org/draft/2019-09/schema", "$recursiveRef": "#"},
     "/$recursiveRef"),
    ({"$vocabulary": {"http://127.0.0.1/vocab": True}}, "/$vocabulary"),
    ({"$ref": "#"}, "/$ref"),
    ({"$defs": {"a": {"allOf": [{"$ref": "#/$defs/b"}]}, "b": {"$ref": "#/$defs/a"}},
      "$ref": "#/$defs/a"}, "/$defs/b/$ref"),
    (DEEP, "/"),
]  # fmt: skip

GOOD = [
    {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": "https://x.test/s"},
    {"$defs": {"n": {"type": "integer"}}, "properties": {"a": {"$ref": "#/$defs/n"}}},
    {  # recursion that descends into the value is fine: a tree
        "type": "object",
        "properties": {"kids": {"type": "array", "items": {"$ref": "#"}}},
    },
    {"properties": {"$ref": {"type": "string"}}, "const": {"$ref": "http://x/"}},
]


@pytest.mark.parametrize(("schema", "pointer"), BAD, ids=[p for _, p in BAD])
async def test_loading_schemas_are_refused_naming_the_keyword(
    client: httpx.AsyncClient, schema: dict[str, Any], pointer: str
) -> None:
    r = await client.post("/v1/tasks", json={"instruction": "x", "output_schema": schema})
    assert r.status_code == 422, r.text
    assert r.headers["content-type"].startswith("application/problem+json")
    error = r.json()["errors"][0]
    assert error["loc"] == ["body", "output_schema"]
    assert f"output_schema {pointer}:" in error["msg"], error["msg"]


@pytest.mark.parametrize("schema", GOOD)
async def test_self_contained_schemas_are_accepted(
    client: httpx.AsyncClient, schema: dict[str, Any]
) -> None:
    r = await client.post("/v1/tasks", json={"instruction": "x", "output_schema": schema})
    assert r.status_code == 202, r.text
