"""Vision tier end to end on Chromium with a scripted vision model (no real LLM here)."""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from playwright.async_api import Page

from workers.agent.protocols import LLMReply
from workers.browser.observe import frames
from workers.browser.observe.snapshot import capture
from workers.browser.observe.vision import Rect
from workers.browser.observe.vision_tier import VisionTier, to_1000

pytestmark = pytest.mark.browser

HTML = """<!doctype html><html><head><meta charset="utf-8"></head><body style="margin:20px">
<div style="display:flex;width:220px;height:32px;align-items:center">
  <span id="chip" role="button" tabindex="0" style="width:180px">United States</span>
  <button id="chev" aria-expanded="false" style="width:28px;height:28px">▾</button>
</div>
<button id="apply" style="margin-top:20px;width:90px;height:30px">Apply</button>
</body></html>"""


class ScriptedVision:
    def __init__(self, replies: list[str]) -> None:
        self.replies = replies
        self.seen: list[Sequence[Mapping[str, Any]]] = []

    async def chat(
        self,
        role: str,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | None = None,
    ) -> LLMReply:
        assert role == "vision"
        self.seen.append(messages)
        return LLMReply(self.replies.pop(0), (), 100, 20, "scripted", 0.0)


async def test_perceive_splits_enriches_and_runs_coverage(page: Page) -> None:
    await frames.install(page)
    await page.goto("data:text/html," + urllib.parse.quote(HTML))
    snap, _ = await capture(page, version=1)
    vp = snap.viewport
    row = await page.evaluate(
        "() => { const r = document.getElementById('chip').parentElement.getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom]; }"
    )
    apply = next(n for n in snap.nodes if n.name == "Apply")
    first = json.dumps(
        {
            "page_type": "search_results",
            "boxes": [
                {
                    "id": "V1",
                    "label": "United States",
                    "box_2d": to_1000(Rect(*row), vp.width, vp.height),
                }
            ],
        }
    )
    cover = json.dumps(
        {
            "boxes": [
                {"label": "Apply", "box_2d": to_1000(Rect.xywh(*apply.bbox), vp.width, vp.height)}
            ]
        }
    )
    llm = ScriptedVision([first, cover])
    tier = VisionTier(llm, fallback=None)
    epoch = await tier.perceive(page, snap, expected=["Apply"])
    assert tier.calls == 2 and epoch.coverage and epoch.page_type == "search_results"
    parts = {b.part: b for b in epoch.boxes}
    chev = next(n for n in snap.nodes if n.name == "▾")
    assert parts["chevron"].ref == chev.ref and parts["chevron"].expanded is False
    assert any(b.ref == apply.ref for b in epoch.boxes)
    image = llm.seen[0][0]["content"][1]["image_url"]["url"]
    assert image.startswith("data:image/jpeg;base64,")
    # the second pass on the same URL carries dashed anchors of the first
    llm.replies.append(first)
    await tier.perceive(page, snap)
    assert "Dashed boxes" in llm.seen[-1][0]["content"][0]["text"]
    assert await page.locator("#webagent-som-root").count() == 0
