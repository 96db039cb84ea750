"""The vision channel through the whole agent: real Chromium, the openai client and the
scripted server, which records every request. The page is a canvas bar chart whose answer
(the tallest bar) exists only as pixels.

With a vision Worker each request carries the Set-of-Mark screenshot of the observation it
shows (tags = the refs in the text); a step on an unchanged screen says "[screenshot
unchanged]" and adds no second image. With a text-only Worker and a vision model, the Worker
gets the `look` tool, and `look` sends the screen to the vision role's model.
"""

from __future__ import annotations

import base64
import json
import time
from typing import Any

import pytest
from playwright.async_api import Page

from app.settings import Settings
from tests.support.llm_server import (
    Reply,
    ScriptedLLMServer,
    request_role,
    text_reply,
    tool_reply,
)
from tests.support.policies import find_ref, latest_observation
from workers.agent.context.vision_channel import UNCHANGED
from workers.agent.loop.loop import run_agent
from workers.agent.protocols import Action, AgentTask, Observation, ToolResult
from workers.agent.testing import RecordingSink
from workers.browser.session import PageSession
from workers.llm.client import OpenAILLM

pytestmark = pytest.mark.browser

QUESTION = "Which quarter sold the most? Click its button and answer with its name."


class RecordingBrowser:
    """The real PageSession, keeping every observation it handed to the loop."""

    def __init__(self, inner: PageSession) -> None:
        self.inner = inner
        self.observations: list[Observation] = []

    @property
    def url(self) -> str:
        return self.inner.url

    async def goto(self, url: str) -> ToolResult:
        return await self.inner.goto(url)

    async def observe(self, mode: str = "compact") -> Observation:
        obs = await self.inner.observe(mode)
        self.observations.append(obs)
        return obs

    async def execute(self, action: Action) -> ToolResult:
        return await self.inner.execute(action)

    async def screenshot(self) -> bytes:
        return await self.inner.screenshot()


def images(request: dict[str, Any]) -> list[bytes]:
    out = []
    for message in request["messages"]:
        content = message.get("content")
        for part in content if isinstance(content, list) else []:
            if part.get("type") == "image_url":
                out.append(base64.b64decode(part["image_url"]["url"].split(",", 1)[1]))
    return out


def texts(message: dict[str, Any]) -> str:
    content = message.get("content") or ""
    if isinstance(content, str):
        return content
    return "\n".join(p["text"] for p in content if p.get("type") == "text")


def is_worker(request: dict[str, Any]) -> bool:
    return request_role(request) == "other" and bool(request.get("tools"))


def worker_requests(server: ScriptedLLMServer) -> list[dict[str, Any]]:
    return [r for r in server.requests if is_worker(r)]


def task(url: str, *, vision: bool = False, look: bool = False) -> AgentTask:
    return AgentTask(QUESTION, url, 6, time.monotonic() + 120, worker_vision=vision, look_tool=look)


def settings_for(server: ScriptedLLMServer, chromium_path: str, **kw: Any) -> Settings:
    return Settings(
        chromium_path=chromium_path,
        llm_base_url=server.base_url,
        llm_model="worker-model",
        llm_max_retries=0,
        **kw,
    )


class VisionWorker:
    """Waits one step on the unchanged page, then clicks Q3 (what the image shows), then done."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, request: dict[str, Any]) -> Reply:
        self.calls += 1
        page = latest_observation(request)
        if self.calls == 1:
            return tool_reply(("wait", {"seconds": 0.1}))
        if self.calls == 2:
            return tool_reply(("click", {"ref": find_ref(page, "button", "Q3")}))
        return tool_reply(("done", {"answer": "Q3", "success": True}))


async def test_vision_worker_gets_the_som_image_once_per_screen(
    page: Page, probe_port: int, chromium_path: str, llm_server: ScriptedLLMServer
) -> None:
    llm_server.set_policy(VisionWorker())
    settings = settings_for(llm_server, chromium_path, llm_worker_vision=True)
    llm = OpenAILLM(settings)
    browser = RecordingBrowser(await PageSession.open(page, settings))
    url = f"http://127.0.0.1:{probe_port}/chart.html"
    outcome = await run_agent(task(url, vision=True), browser, llm, RecordingSink())
    await llm.close()

    assert outcome.success and outcome.answer == "Q3", outcome
    assert await page.text_content("#result") == "Correct"
    first, second, third = worker_requests(llm_server)[:3]
    # the steps' observations (not the look after each model call that found the page as it
    # was, issue 26 item 7: those are the same state again)
    shown = [o for o in browser.observations if not o.stats.get("reused")]
    assert "box tagged 12 is" not in texts(first["messages"][0])  # a rule, not a caption
    assert "Red boxes with a number N" in texts(first["messages"][0])  # system prompt section
    # step 1: the observation's own Set-of-Mark JPEG, its tags being the refs of the text
    assert images(first) == [shown[0].image]
    # the canvas (its own ref since observation wave 5b) and the four buttons
    assert shown[0].stats["som"]["refs"] == [
        f"{shown[0].version}:{n}" for n in ("2", "4", "5", "6", "7")
    ]
    assert f"ref {shown[0].version}:N" in texts(first["messages"][-1])
    # step 2: `wait` forces a new snapshot version, but the screen is pixel for pixel the
    # same: the text says "[screenshot unchanged]", and the only image in the prompt is the
    # one held from step 1 (this history keeps no earlier page messages to point back to)
    assert shown[1].version > shown[0].version and shown[1].image == shown[0].image
    assert UNCHANGED in texts(second["messages"][-1]) and "step 1" in texts(second["messages"][-1])
    assert images(second) == [shown[0].image]
    # step 3: the click changed the page: a new screenshot, still one image in the prompt
    assert shown[2].version > shown[0].version and "Correct" in shown[2].text
    assert images(third) == [shown[2].image] and shown[2].image != shown[0].image
    assert UNCHANGED not in texts(third["messages"][-1])


class LookingWorker:
    """A text-only Worker: asks `look` about the chart, then clicks what the answer names."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, request: dict[str, Any]) -> Reply:
        if not request.get("tools"):  # the vision model, asked by the look tool
            return text_reply("The tallest bar is Q3 (red), about 90.")
        self.calls += 1
        page = latest_observation(request)
        if self.calls == 1:
            return tool_reply(("look", {"question": "Which quarter has the tallest bar?"}))
        if self.calls == 2:
            answer = json.loads(request["messages"][-2]["content"])["data"]["answer"]
            quarter = "Q3" if "Q3" in answer else "Q1"
            return tool_reply(("click", {"ref": find_ref(page, "button", quarter)}))
        return tool_reply(("done", {"answer": "Q3", "success": True}))


async def test_text_worker_looks_through_the_vision_role(
    page: Page, probe_port: int, chromium_path: str, llm_server: ScriptedLLMServer
) -> None:
    llm_server.set_policy(LookingWorker())
    settings = settings_for(
        llm_server, chromium_path, vision_enabled=True, llm_model_vision="vision-model"
    )
    llm = OpenAILLM(settings)
    session = await PageSession.open(page, settings, llm=llm)
    url = f"http://127.0.0.1:{probe_port}/chart.html"
    outcome = await run_agent(task(url, look=True), session, llm, RecordingSink())
    await llm.close()

    assert outcome.success and await page.text_content("#result") == "Correct", outcome
    workers = worker_requests(llm_server)
    assert "look" in {t["function"]["name"] for t in workers[0]["tools"]}
    assert all(images(r) == [] for r in workers)  # the text Worker never gets an image
    (looked,) = [r for r in llm_server.requests if not r.get("tools") and images(r)]
    assert looked["model"] == "vision-model"
    assert "Which quarter has the tallest bar?" in texts(looked["messages"][0])
    assert images(looked)[0][:2] == b"\xff\xd8"
    result = json.loads(workers[1]["messages"][-2]["content"])
    assert result["success"] is True and "Q3" in result["data"]["answer"]
    assert 'untrusted="true"' in result["data"]["answer"]  # vision output is page content


async def test_look_is_not_offered_without_a_vision_model(
    page: Page, probe_port: int, chromium_path: str, llm_server: ScriptedLLMServer
) -> None:
    llm_server.set_policy(lambda r: tool_reply(("done", {"answer": "?", "success": False})))
    settings = settings_for(llm_server, chromium_path)
    llm = OpenAILLM(settings)
    session = await PageSession.open(page, settings, llm=llm)
    url = f"http://127.0.0.1:{probe_port}/chart.html"
    await run_agent(task(url), session, llm, RecordingSink())
    await llm.close()
    first = worker_requests(llm_server)[0]
    assert "look" not in {t["function"]["name"] for t in first["tools"]}
    assert "look(" not in texts(first["messages"][0]) and images(first) == []
