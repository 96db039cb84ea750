"""A person's takeover (workers/agent/people/takeover.py): the agent pauses before its next
observation, resumes on hand-back with a Ledger note of what the person did (counts only,
never the keys), and an approval wait lets the person act without a takeover."""

from __future__ import annotations

import asyncio
import time
from typing import Any

from workers.agent.context.history import CompressedHistory
from workers.agent.loop.loop import AgentLoop, run_agent
from workers.agent.people.takeover import Takeover, TakeoverBrowser, activity_note
from workers.agent.protocols import AgentTask, ApprovalRequest
from workers.agent.testing import (
    FakeBrowser,
    FakeLLM,
    InMemoryMemoryStore,
    RecordingSink,
    ScriptedGate,
    reply,
)

HOME = "http://site.test/"
PAGES = {HOME: [("button", "Add one", None)]}


def _task() -> AgentTask:
    return AgentTask("count the clicks", HOME, 5, time.monotonic() + 60)


async def _until(check: Any) -> None:
    while not check():
        await asyncio.sleep(0)


async def test_paused_agent_resumes_on_hand_back_with_a_ledger_note() -> None:
    sink = RecordingSink()
    takeover = Takeover(sink)
    browser = TakeoverBrowser(FakeBrowser(PAGES), takeover)
    llm = FakeLLM([reply(("done", {"answer": "2 clicks", "success": True}))])
    loop = AgentLoop(_task(), browser, llm, sink, CompressedHistory(_task()))
    await takeover.request("key:abc")
    run = asyncio.create_task(loop.run())
    await _until(lambda: takeover.paused)
    assert takeover.person_may_act and not llm.prompts  # no model call while a person acts
    for kind in ("click", "click", "key", "wheel"):
        takeover.record(kind, HOME)
    await takeover.hand_back("key:abc")
    outcome = await run
    assert outcome.success and outcome.answer == "2 clicks"
    [note] = [n for n in loop.ledger.episodic if n.kind == "person"]
    assert "2 clicks, 1 scroll, 1 key press" in note.text and HOME in note.text
    assert sink.of_type("takeover.started") == [{"by": "key:abc", "reason": "takeover"}]
    [ended] = sink.of_type("takeover.ended")
    assert {k: ended[k] for k in ("by", "acts", "url")} == {
        "by": "key:abc",
        "acts": {"click": 2, "wheel": 1, "key": 1},
        "url": HOME,
    }
    # the page as the person left it is kept, and the event names it (the run page shows it)
    assert ended["screenshot"] == "takeover-1" and sink.takeover_shots[1].startswith(b"\xff\xd8")
    assert ended["held_s"] >= 0
    assert not takeover.person_may_act


async def test_hand_back_before_the_pause_calls_the_takeover_off() -> None:
    takeover = Takeover()
    await takeover.request("local")
    await takeover.hand_back("local")
    await takeover.agent_turn(lambda: HOME)  # returns at once: nobody has the page
    assert not takeover.paused and takeover.take_notes() == []


async def test_approval_wait_lets_the_person_act_and_is_noted() -> None:
    takeover = Takeover()
    seen: list[bool] = []

    def person(_: ApprovalRequest) -> None:
        seen.append(takeover.person_may_act)
        takeover.record("click", HOME)

    gate = takeover.gated(ScriptedGate(on_request=person))
    await gate.request(ApprovalRequest(kind="challenge", reason="captcha", url=HOME))
    assert seen == [True] and not takeover.person_may_act
    await takeover.agent_turn(lambda: HOME)
    [note] = takeover.take_notes()
    assert "while the run waited for a decision" in note and "1 click" in note


def test_note_names_counts_and_pages_only() -> None:
    note = activity_note({"key": 12}, "http://a.test/", "http://b.test/", "takeover")
    assert "12 key presses" in note and "from http://a.test/ to http://b.test/" in note


async def test_the_worker_reads_the_note_beside_the_page_not_in_it() -> None:
    takeover = Takeover()
    browser = TakeoverBrowser(FakeBrowser(PAGES), takeover)
    llm = FakeLLM([reply(("done", {"answer": "1 click", "success": True}))])
    await takeover.request("local")
    run = asyncio.create_task(
        run_agent(_task(), browser, llm, RecordingSink(), memory=InMemoryMemoryStore())
    )
    await _until(lambda: takeover.paused)
    takeover.record("click", HOME)
    await takeover.hand_back("local")
    assert (await run).success
    [current] = [m["content"] for m in llm.prompts[0] if m["role"] == "user"][-1:]
    assert current.startswith("A person took over the browser (takeover): 1 click")
    page = current[current.index("<page_content") : current.index("</page_content>")]
    assert "A person took over" not in page


class _TakenOverMidCall(FakeLLM):
    """The person presses Take over while the model decides its first step."""

    def __init__(self, takeover: Takeover, script: list[Any]) -> None:
        super().__init__(script)
        self.takeover = takeover

    async def scripted(self, role: str, messages: Any, tools: Any) -> Any:
        answer = await super().scripted(role, messages, tools)
        if len(self.prompts) == 1:
            await self.takeover.request("key:abc")
        return answer


async def test_a_takeover_during_the_model_call_voids_its_decision_and_is_said_first() -> None:
    sink = RecordingSink()
    takeover, fake = Takeover(sink), FakeBrowser(PAGES)
    llm = _TakenOverMidCall(
        takeover,
        [
            reply(("click", {"ref": "1:1"})),  # decided on the page before the person acted
            reply(("done", {"answer": "the person added one", "success": True})),
        ],
    )
    run = asyncio.create_task(
        run_agent(_task(), TakeoverBrowser(fake, takeover), llm, sink, memory=InMemoryMemoryStore())
    )
    await _until(lambda: takeover.paused)
    takeover.record("click", HOME)
    await takeover.hand_back("key:abc")
    assert (await run).success
    assert [a.name for a in fake.actions if a.name == "click"] == []  # the void choice
    [_, second] = llm.prompts
    current = [m["content"] for m in second if m["role"] == "user"][-1]
    assert current.startswith("A person took over the browser (takeover): 1 click")
    assert "was not carried out" in current.split("<page_content")[0]
    assert len(sink.of_type("takeover.ended")) == 1
