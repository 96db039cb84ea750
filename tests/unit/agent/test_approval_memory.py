""" "This needed a person's approval last time" (issue 34): an action a person was asked
about is remembered per host and element, and a later run on the host sees the mark on that
element's line in the observation it picks its tool call from, before it acts, not after the
wait."""

from __future__ import annotations

import time
from typing import Any

from workers.agent.loop.loop import run_agent
from workers.agent.memory.approval_memory import AskedBefore, annotate
from workers.agent.people.supervised import Supervision, supervise
from workers.agent.protocols import AgentTask
from workers.agent.testing import (
    BRAIN_SIDE,
    FakeLLM,
    InMemoryMemoryStore,
    InspectableBrowser,
    RecordingSink,
    ScriptedGate,
    message_text,
    reply,
)

HOME, SENT = "http://parts.test/quote", "http://parts.test/sent"
PAGES = {
    HOME: [("textbox", "Quantity", None), ("button", "Send request", SENT)],
    SENT: [("heading", "Request sent", None)],
}
MARK = "needed a person's approval last time"
INSTRUCTION = "look at the quote page and tell me what it offers"


async def _run(memory: InMemoryMemoryStore, script: list[Any], answers: list[str]) -> Any:
    gate = ScriptedGate(answers=list(answers))
    browser = supervise(InspectableBrowser(PAGES), gate, Supervision(), memory)
    llm = FakeLLM(script, side=BRAIN_SIDE)
    task = AgentTask(INSTRUCTION, HOME, 6, time.monotonic() + 60)
    await run_agent(task, browser, llm, RecordingSink(), memory=memory)
    return llm, gate


async def test_a_later_run_sees_the_approval_on_the_element_before_it_acts() -> None:
    memory = InMemoryMemoryStore()
    send = reply(("click", {"ref": "1:2"}))
    done = reply(("done", {"answer": "a quote form", "success": True}))
    first, gate = await _run(memory, [send, done], ["approved"])
    assert len(gate.requests) == 1
    assert MARK not in message_text(first.prompts[0])  # nothing remembered yet

    later, _ = await _run(memory, [done], [])
    prompt = message_text(later.prompts[0])  # the first Worker call, before any action
    line = next(x for x in prompt.splitlines() if 'button "Send request"' in x)
    assert f"({MARK}: click)" in line
    assert not [x for x in prompt.splitlines() if "Quantity" in x and MARK in x]
    assert memory.learnings["parts.test"]["approvals"] == [
        {"action": "click", "target": 'button "Send request"', "decision": "approved"}
    ]


def test_the_mark_names_each_action_once_per_element() -> None:
    text = '[3:1] textbox "Password"\n[3:2] button "Log in"\n[3:3] button "Log in later"'
    asked = [AskedBefore("type", 'textbox "Password"'), AskedBefore("click", 'button "Log in"')]
    lines = annotate(text, asked).splitlines()
    assert lines[0].endswith(f"({MARK}: type)") and lines[1].endswith(f"({MARK}: click)")
    assert lines[2] == '[3:3] button "Log in later"'
