"""Issue 31 item 3, tools the model could not see: `more_tools`' description names every
tool it can enable (a stable text); an enabled tool runs in the same turn, also when
`more_tools` sits inside a `bulk`; the limits the arguments enforce are in the schema; the
system prompts' per-turn numbers are the ones `bulk` and the batch accept."""

from __future__ import annotations

import json
import re
import time
from typing import Any

from workers.agent import prompts
from workers.agent.loop.loop import run_agent
from workers.agent.protocols import AgentTask
from workers.agent.testing import BRAIN_SIDE, FakeBrowser, FakeLLM, RecordingSink, reply
from workers.agent.tools import MAX_ACTIONS_PER_STEP, TOOLS, worker_tools
from workers.agent.tools.offer import CORE, ToolOffer
from workers.agent.tools.registry import MAX_BULK_ACTIONS, MORE_TOOLS


def _more_tools(offer: ToolOffer) -> str:
    schema = next(t for t in offer.tools("") if t["function"]["name"] == MORE_TOOLS)
    return str(schema["function"]["description"])


def test_more_tools_names_every_tool_it_can_enable_in_a_stable_text() -> None:
    offer = ToolOffer(instruction="x", allow_scripts=True, vision=True)
    text = _more_tools(offer)
    every = [t["function"]["name"] for t in worker_tools(allow_scripts=True, vision=True)]
    listed = set(re.split(r"[,;]\s*", text.split(": ", 1)[1]))
    for name in every:
        assert (name in listed) == (name not in CORE), name
    offer.more_tools(["tabs"])
    offer.tools('[1:1] combobox "x"')
    assert _more_tools(offer) == text  # the request prefix stays the same all run
    plain = _more_tools(ToolOffer(instruction="x"))
    assert "evaluate_script" not in plain and "look" not in plain  # not for this task


def test_limits_the_arguments_enforce_are_in_the_schema() -> None:
    def params(tool: str) -> dict[str, Any]:
        return dict(TOOLS[tool].schema["function"]["parameters"]["properties"])

    assert params("wait")["seconds"]["maximum"] == 10
    assert params("bulk")["actions"]["maxItems"] == MAX_BULK_ACTIONS == 60
    assert params("pointer")["steps"]["maximum"] == 100
    assert params("scroll")["pixels"]["maximum"] == 20000


def test_the_prompts_say_what_a_turn_and_a_bulk_accept() -> None:
    for name in ("worker_system.md", "worker_brain.md"):
        text = " ".join(prompts.load(name).split())
        assert f"{MAX_ACTIONS_PER_STEP} calls" in text, name
        assert f"`bulk` of up to {MAX_BULK_ACTIONS}" in text or (
            f"runs up to {MAX_BULK_ACTIONS} actions" in text
        ), name


def _run(*turns: Any) -> tuple[FakeBrowser, FakeLLM, Any]:
    page = {"http://a.test/": [("button", "OK", None)]}
    llm = FakeLLM([*turns, reply(("done", {"answer": "ok", "success": True}))], BRAIN_SIDE)
    task = AgentTask("press OK", "http://a.test/", 6, time.monotonic() + 60)
    browser = FakeBrowser(page)
    return browser, llm, task


async def test_a_tool_enabled_by_more_tools_runs_in_the_same_turn() -> None:
    browser, llm, task = _run(
        reply(("more_tools", {"enable": ["hover"]}), ("hover", {"ref": "1:1"})),
    )
    sink = RecordingSink()
    await run_agent(task, browser, llm, sink)
    assert [a.name for a in browser.actions][:1] == ["hover"]
    results = [e for e in sink.events if e[0] == "action.executed"]
    enabled = next(e[1] for e in results if e[1]["action"] == MORE_TOOLS)
    assert "next step" not in enabled["reason"] and "now" in enabled["reason"], enabled


async def test_more_tools_inside_bulk_enables_and_the_bulk_runs_on() -> None:
    steps = [
        {"tool": "more_tools", "enable": ["hover"]},
        {"tool": "hover", "ref": "1:1"},
        {"tool": "click", "ref": "1:1"},
    ]
    browser, llm, task = _run(reply(("bulk", {"actions": steps})))
    await run_agent(task, browser, llm, RecordingSink())
    bulk = next(a for a in browser.actions if a.name == "bulk")
    assert [s["tool"] for s in bulk.args["actions"]] == ["hover", "click"]
    assert "hover" in llm.offered[1]  # enabled for the next call too


def test_naming_every_tool_costs_no_tokens_over_the_request_before_it() -> None:
    """Issue 31 item 3 named every tool in more_tools and grew the Worker request by 8%; the
    fixed part of the request on a plain page (tool block + system prompt, o200k) is back
    under what it was before the tools were named: 692 + 378 = 1,070 (main had 785 + 390)."""
    from bench.request_tokens import o200k

    enc = o200k()
    tools = ToolOffer(instruction="Click on the OK button.").tools('[1:1] button "OK"')
    block = sum(len(enc.encode(json.dumps(t, separators=(",", ":")))) for t in tools)
    system = len(enc.encode(prompts.load("worker_brain.md").strip()))
    assert block + system <= 1_070, (block, system)
