"""The Planner judges a claim with the evidence it rests on (issue 27 item 5, issue 26 16).

Measured before: the Planner's verification request held `read_text(...) -> ok` at most,
never the text read, the downloaded file's content, nor the image the Worker saw; it
refused correct answers until the Worker copied them into `record_fact`.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from workers.agent.loop.loop import run_agent
from workers.agent.protocols import AgentTask, LLMReply, Observation, ToolResult
from workers.agent.testing import FakeBrowser, FakeLLM, RecordingSink, default_summarizer, reply

HOME = "http://vault.test/"
PAGES = {HOME: [("button", "Reveal", None), ("link", "Manual", HOME)]}
SECRET = "QuietHarbourEasy"


def planner_accepting_only_with_evidence(messages: Sequence[Mapping[str, Any]]) -> LLMReply:
    """A Planner that accepts the claim only when its request shows the answer."""
    shown = json.dumps(messages, ensure_ascii=False)
    done = SECRET in shown.split("<completion_claim>")[0] or SECRET in _evidence(messages)
    body = {
        "observation": "",
        "challenges": "" if done else "not shown",
        "next_steps": [],
        "final_answer": "",
        "reasoning": "",
        "done": done,
    }
    return LLMReply(json.dumps(body), (), 40, 10, "planner", 0.0, "stop")


def _evidence(messages: Sequence[Mapping[str, Any]]) -> str:
    last = messages[-1]["content"]
    return last if isinstance(last, str) else json.dumps(last, ensure_ascii=False)


SIDE = {"planner": planner_accepting_only_with_evidence, "summarizer": default_summarizer}


def accepting(messages: Sequence[Mapping[str, Any]]) -> LLMReply:
    return LLMReply(json.dumps({"done": True, "next_steps": []}), (), 40, 10, "p", 0.0, "stop")


ACCEPT = {"planner": accepting, "summarizer": default_summarizer}


def task(**kw: Any) -> AgentTask:
    return AgentTask("read the vault code", HOME, 6, time.monotonic() + 60, **kw)


def read_browser(
    tool: str = "read_text", text: str = f"The vault code is {SECRET}."
) -> FakeBrowser:
    browser = FakeBrowser(PAGES)
    browser.fail[tool] = ToolResult(success=True, reason="read 1 chunk", data={"text": text})
    return browser


def planner_requests(llm: FakeLLM) -> list[Sequence[Mapping[str, Any]]]:
    return [messages for role, messages, _ in llm.calls if role == "planner"]


async def test_the_planner_sees_what_read_text_returned() -> None:
    llm = FakeLLM(
        [
            reply(("read_text", {"ref": "1:1"})),
            reply(("done", {"answer": SECRET, "success": True})),
        ],
        SIDE,
    )
    outcome = await run_agent(task(), read_browser(), llm, RecordingSink())
    assert outcome.success and outcome.answer == SECRET
    (request,) = planner_requests(llm)
    asked = _evidence(request)
    assert f"The vault code is {SECRET}." in asked
    assert 'untrusted="true"' in asked.split("The vault code")[0]


async def test_a_read_in_the_claims_own_step_is_evidence_too() -> None:
    llm = FakeLLM(
        [
            reply(
                ("read_download", {"name": "codes.txt"}),
                ("done", {"answer": SECRET, "success": True}),
            )
        ],
        SIDE,
    )
    outcome = await run_agent(task(), read_browser("read_download"), llm, RecordingSink())
    assert outcome.success
    assert f"The vault code is {SECRET}." in _evidence(planner_requests(llm)[0])


async def test_echoing_tools_are_not_evidence() -> None:
    llm = FakeLLM(
        [
            reply(("type", {"ref": "1:1", "text": SECRET})),
            reply(("done", {"answer": SECRET, "success": True})),
        ]
        + [reply(("done", {"answer": SECRET, "success": True}))] * 4,
        SIDE,
    )
    browser = FakeBrowser(PAGES)
    browser.fail["type"] = ToolResult(success=True, reason=f"typed {SECRET}", data={"text": SECRET})
    await run_agent(task(), browser, llm, RecordingSink())
    assert SECRET not in _evidence(planner_requests(llm)[0]).split("<completion_claim>")[0]


class SeeingFake(FakeBrowser):
    async def observe(self, mode: str = "compact") -> Observation:
        return replace(await super().observe(mode), image=b"\xff\xd8jpeg-bytes\xff\xd9")


async def test_the_planner_gets_the_latest_image_when_the_worker_reads_images() -> None:
    llm = FakeLLM([reply(("done", {"answer": "seen in the picture", "success": True}))], ACCEPT)
    await run_agent(task(worker_vision=True), SeeingFake(PAGES), llm, RecordingSink())
    request = planner_requests(llm)[0]
    parts = request[-1]["content"]
    assert isinstance(parts, list)
    assert any(p.get("type") == "image_url" for p in parts)


async def test_without_images_the_planner_request_stays_text() -> None:
    llm = FakeLLM([reply(("done", {"answer": "x", "success": True}))], ACCEPT)
    await run_agent(task(), FakeBrowser(PAGES), llm, RecordingSink())
    assert isinstance(planner_requests(llm)[0][-1]["content"], str)
