"""`output_schema` given to the model (issue 23 §3): `done` gets a `data` parameter typed by
the task's schema (strict where the schema allows it), the repair call asks with
`response_format: json_schema`; validation and one repair stay as the fallback.

The model double can only emit what the schema in its request allows (SchemaBoundLLM): on
main, where `done` took only `answer` and the repair asked for free `json_object`, it could
never produce the task's JSON and the task failed `output_invalid`.
"""

from __future__ import annotations

import time
from typing import Any

from workers.agent.judge.structured import settle
from workers.agent.loop.loop import run_worker_only
from workers.agent.protocols import AgentOutcome, AgentTask
from workers.agent.testing import FakeBrowser, RecordingSink, SchemaBoundLLM, instance
from workers.agent.tools.offer import ToolOffer
from workers.agent.tools.typed_done import strict_compatible

HOME = "http://shop.test/"
PAGES = {HOME: [("link", "Lamp 12.50 EUR", HOME)]}
STRICT = {
    "type": "object",
    "properties": {
        "title": {"type": "string"},
        "price": {"type": "number"},
        "currency": {"type": "string", "enum": ["EUR", "USD"]},
    },
    "required": ["title", "price", "currency"],
    "additionalProperties": False,
}
LOOSE = {"type": "object", "properties": {"title": {"type": "string"}}, "required": ["title"]}


def task(schema: dict[str, Any] | None) -> AgentTask:
    return AgentTask("find the lamp's price", HOME, 5, time.monotonic() + 60, output_schema=schema)


def done_tool(offer: ToolOffer) -> dict[str, Any]:
    return next(t for t in offer.tools("") if t["function"]["name"] == "done")


def test_done_offers_data_typed_by_the_schema_strict_when_the_schema_allows() -> None:
    strict = done_tool(ToolOffer(output_schema=STRICT))["function"]
    assert strict["parameters"]["properties"]["data"] == STRICT
    assert strict["strict"] is True
    assert set(strict["parameters"]["required"]) == {"answer", "success", "data"}
    assert strict["parameters"]["additionalProperties"] is False
    loose = done_tool(ToolOffer(output_schema=LOOSE))["function"]
    assert loose["parameters"]["properties"]["data"] == LOOSE and "strict" not in loose
    plain = done_tool(ToolOffer())["function"]
    assert "data" not in plain["parameters"]["properties"]  # no schema: done as before


def test_strict_compatibility_follows_the_strict_subset() -> None:
    assert strict_compatible(STRICT)
    assert not strict_compatible(LOOSE)  # additionalProperties not false
    assert not strict_compatible({**STRICT, "required": ["title"]})  # optional property
    assert not strict_compatible({"type": "array", "items": {"type": "string"}})  # not an object


async def test_schema_bound_model_finishes_with_valid_data_and_no_repair() -> None:
    llm = SchemaBoundLLM()
    outcome = await run_worker_only(task(STRICT), FakeBrowser(PAGES), llm, RecordingSink())
    assert outcome.success and outcome.data == instance(STRICT)
    settled = await settle(outcome, STRICT, llm, "find the lamp's price")
    assert settled.success and settled.data == instance(STRICT)
    assert [role for role, _, _ in llm.calls] == ["worker"]  # no repair call


async def test_without_data_the_repair_asks_with_the_schema_as_response_format() -> None:
    llm = SchemaBoundLLM()
    prose = AgentOutcome("The lamp costs 12.50 EUR", True, "succeeded", 2, 2, 100, 10)
    settled = await settle(prose, STRICT, llm, "find the lamp's price")
    assert settled.success, settled.reason
    assert settled.data == instance(STRICT)
    ((role, _, fmt),) = llm.calls
    assert role == "worker" and fmt is not None and fmt["type"] == "json_schema"
    assert fmt["json_schema"]["schema"] == STRICT and fmt["json_schema"]["strict"] is True


async def test_data_that_breaks_the_schema_is_repaired_once() -> None:
    llm = SchemaBoundLLM()
    wrong = AgentOutcome(
        "Lamp", True, "succeeded", 2, 2, 100, 10, data={"title": "Lamp", "price": "cheap"}
    )
    settled = await settle(wrong, STRICT, llm, "find the lamp's price")
    assert settled.success and settled.data == instance(STRICT)
    assert len(llm.calls) == 1
