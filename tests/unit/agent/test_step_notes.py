"""Issue 22: each step's notes once in the next request; a bulk call in short form, never
cut JSON, in the Ledger's step lines."""

from __future__ import annotations

import json
import time

from workers.agent.context.history import ExecutedCall, call_line
from workers.agent.loop.loop import run_agent
from workers.agent.protocols import Action, AgentTask, ToolCall, ToolResult
from workers.agent.testing import BRAIN_SIDE, FakeBrowser, FakeLLM, RecordingSink, reply

PAGES = {"http://a.test/": [("textbox", "Name", None), ("button", "Next", None)]}
NOTES = {
    "evaluation_previous_goal": "Success: the zebra-form opened",
    "memory": "quokka-memo keep the name for later",
    "next_goal": "wombat-goal fill the name field",
}


def _text(messages: list) -> str:
    parts = []
    for m in messages:
        content = m.get("content")
        parts.append(content if isinstance(content, str) else json.dumps(content))
        for call in m.get("tool_calls") or ():
            parts.append(call["function"]["arguments"])
    return "\n".join(p for p in parts if p)


async def test_each_note_appears_once_in_the_next_worker_request() -> None:
    bulk = ("bulk", {"actions": [{"tool": "type", "ref": "1:1", "text": "Ada"}]})
    llm = FakeLLM(
        [
            reply(bulk, content=json.dumps(NOTES)),
            reply(("scroll", {"direction": "down"})),
            reply(("done", {"answer": "ok", "success": False})),
        ],
        BRAIN_SIDE,
    )
    task = AgentTask("fill in the name", "http://a.test/", 6, time.monotonic() + 60)
    await run_agent(task, FakeBrowser(PAGES), llm, RecordingSink())
    second, third = _text(llm.prompts[1]), _text(llm.prompts[2])
    for marker in ("zebra-form", "quokka-memo", "wombat-goal"):
        assert second.count(marker) == 1, (marker, second)
    # the step just taken is replayed verbatim, so its Ledger line does not list the calls
    # again; a step later, the Ledger's line shows the bulk in short form
    assert "step 1 from http://a.test/: (replayed below)" in second and "bulk[" not in second
    assert "bulk[type(ref=1:1,text=Ada)]" in third and "step 2: (replayed below)" in third


def test_a_bulk_call_is_its_actions_in_short_form() -> None:
    inner = [
        {"tool": "click", "args": {"ref": "1:2"}},
        {"tool": "type", "args": {"ref": "1:3", "text": "a long text " * 10, "secret": False}},
        {"tool": "type", "args": {"ref": "1:4", "text": "hunter2", "secret": True}},
    ]
    executed = ExecutedCall(
        ToolCall("c1", "bulk", {}), Action("bulk", {"actions": inner}), ToolResult(success=True)
    )
    line = call_line(executed)
    assert line.startswith("bulk[click(ref=1:2); type(ref=1:3,text=a long text")
    assert "hunter2" not in line and "text=***" in line
    assert "{" not in line and line.endswith("] -> ok")
