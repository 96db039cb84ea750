"""observe(mode="vision") end to end: real Chromium, the real OpenAI client, the scripted LLM
server answering with boxes (seed 000 §4.3 tiering, §4.5 prefetch with soft/hard waits)."""

from __future__ import annotations

import json
import urllib.parse
from typing import Any

import pytest

from app.settings import Settings
from tests.support.llm_server import Reply, ScriptedLLMServer, text_reply
from workers.agent.errors import ConfigurationError
from workers.agent.protocols import Action
from workers.browser.session import PageSession
from workers.llm.client import OpenAILLM

pytestmark = pytest.mark.browser

HTML = """<!doctype html><html><head><title>Filters</title></head><body style="margin:20px">
<button id="apply" style="width:120px;height:40px">Apply</button>
<button id="more" style="width:120px;height:40px;margin-left:40px"
  onclick="const b=document.createElement('button');b.textContent='Extra';
  b.style.cssText='width:120px;height:40px;display:block;margin-top:20px';document.body.appendChild(b)">
  More</button>
</body></html>"""


def _box(rect: list[float], label: str) -> dict[str, Any]:
    x, y, w, h = rect
    return {
        "label": label,
        "box_2d": [y / 800 * 1000, x / 1280 * 1000, (y + h) / 800 * 1000, (x + w) / 1280 * 1000],
    }


class Boxes:
    """Policy: the boxes of the named buttons as they are on the page when asked."""

    def __init__(self, rects: dict[str, list[float]], page_type: str = "") -> None:
        self.rects = rects
        self.page_type = page_type
        self.delay_s = 0.0

    def __call__(self, request: dict[str, Any]) -> Reply:
        parts = request["messages"][0]["content"]
        assert parts[1]["image_url"]["url"].startswith("data:image/jpeg;base64,")
        body = {
            "page_type": self.page_type,
            "boxes": [_box(r, label) for label, r in self.rects.items()],
        }
        reply = text_reply(json.dumps(body))
        return Reply(content=reply.content, finish_reason="stop", delay_s=self.delay_s)


async def _rects(session: PageSession) -> dict[str, list[float]]:
    got: dict[str, list[float]] = await session.page.evaluate(
        "() => Object.fromEntries([...document.querySelectorAll('button')].map(b => {"
        " const r = b.getBoundingClientRect(); return [b.textContent.trim(),"
        " [r.left, r.top, r.width, r.height]]; }))"
    )
    return got


def _settings(chromium_path: str, llm_server: ScriptedLLMServer, **kw: Any) -> Settings:
    return Settings(
        chromium_path=chromium_path,
        llm_base_url=llm_server.base_url,
        llm_model="worker-model",
        llm_model_vision="small-vision",
        vision_enabled=True,
        llm_max_retries=0,
        **kw,
    )


def _ref(session: PageSession, name: str) -> str:
    assert session.last is not None
    return next(n.ref for n in session.last.nodes if n.interactive and n.name == name)


async def test_vision_boxes_prefetch_and_gating(
    page: Any, chromium_path: str, llm_server: ScriptedLLMServer
) -> None:
    settings = _settings(chromium_path, llm_server)
    llm = OpenAILLM(settings)
    session = await PageSession.open(page, settings, llm=llm)
    try:
        await session.goto("data:text/html," + urllib.parse.quote(HTML))
        policy = Boxes(await _rects(session))
        llm_server.set_policy(policy)
        obs = await session.observe("vision")
        assert obs.stats["vision"]["source"] == "fresh"
        assert f"[V1] Apply (ref={_ref(session, 'Apply')})" in obs.text
        assert f"[V2] More (ref={_ref(session, 'More')})" in obs.text
        assert [r["model"] for r in llm_server.requests] == ["small-vision"]
        # unchanged page: the whole observation is reused, no second vision call
        again = await session.observe("vision")
        assert again.stats["reused"] is True and len(llm_server.requests) == 1
        # a mutating action starts the background look; observe picks it up
        policy.rects = {**policy.rects, "Extra": [20, 80, 120, 40]}
        await session.execute(Action("click", {"ref": _ref(session, "More")}))
        after = await session.observe("vision")
        assert after.version == obs.version + 1 and after.stats["vision"]["source"] == "prefetch"
        assert len(llm_server.requests) == 2
        assert f"Extra (ref={_ref(session, 'Extra')})" in after.text
        assert await page.locator("#webagent-som-root").count() == 0
    finally:
        await session.close()
        await llm.close()


async def test_slow_prefetch_is_flagged_as_lagging(
    page: Any, chromium_path: str, llm_server: ScriptedLLMServer
) -> None:
    settings = _settings(chromium_path, llm_server)
    llm = OpenAILLM(settings)
    session = await PageSession.open(page, settings, llm=llm)
    try:
        await session.goto("data:text/html," + urllib.parse.quote(HTML))
        policy = Boxes(await _rects(session))
        llm_server.set_policy(policy)
        await session.observe("vision")
        policy.delay_s = 6.0  # beyond the 1.5 s soft wait (same URL: not the hard one)
        await session.execute(Action("click", {"ref": _ref(session, "More")}))
        obs = await session.observe("vision")
        assert obs.stats["vision"]["lag"] is True
        assert "vision lagging" in obs.text
        # previous boxes are re-matched to the new version's refs
        assert f"Apply (ref={_ref(session, 'Apply')})" in obs.text
    finally:
        await session.close()
        await llm.close()


async def test_complex_page_escalates_to_the_fallback_model(
    page: Any, chromium_path: str, llm_server: ScriptedLLMServer
) -> None:
    settings = _settings(chromium_path, llm_server, llm_model_vision_fallback="big-vision")
    llm = OpenAILLM(settings)
    session = await PageSession.open(page, settings, llm=llm)
    try:
        await session.goto("data:text/html," + urllib.parse.quote(HTML))
        llm_server.set_policy(Boxes(await _rects(session), page_type="search_results"))
        first = await session.observe("vision")
        assert first.stats["vision"]["tier"] == "small"
        await session.execute(Action("click", {"ref": _ref(session, "More")}))
        second = await session.observe("vision")
        assert second.stats["vision"]["tier"] == "large"
        assert [r["model"] for r in llm_server.requests] == ["small-vision", "big-vision"]
    finally:
        await session.close()
        await llm.close()


async def test_vision_mode_needs_opt_in_and_an_llm(page: Any, chromium_path: str) -> None:
    session = await PageSession.open(page, Settings(chromium_path=chromium_path))
    with pytest.raises(ConfigurationError):
        await session.observe("vision")
