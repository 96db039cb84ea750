"""The Worker's image channel and the `look` tool on a real Chromium, on a page whose answer
exists only as pixels (a canvas bar chart): the Set-of-Mark tags drawn are the refs of the
text, an unchanged page reuses its image, and `look` sends a crop to the vision role."""

from __future__ import annotations

import base64
import re
import struct

import pytest
from playwright.async_api import Page

from app.settings import Settings
from workers.agent.protocols import Action, LLMReply
from workers.agent.testing import FakeLLM
from workers.browser.observe import som
from workers.browser.session import PageSession

pytestmark = pytest.mark.browser

# Records the tag texts of every Set-of-Mark overlay the page is given, in drawing order.
RECORD_TAGS = """() => { window.__tags = [];
  new MutationObserver((records) => { for (const r of records) for (const n of r.addedNodes)
    if (n.id === 'webagent-som-root') window.__tags.push(
      [...n.children].map((box) => box.firstChild.textContent)); })
  .observe(document.documentElement, { childList: true }); }"""
REF = re.compile(r"\[(\d+):(\d+)\]")


def jpeg_size(data: bytes) -> tuple[int, int]:
    """(width, height) from a JPEG's start-of-frame marker."""
    assert data[:2] == b"\xff\xd8"
    i = 2
    while i < len(data):
        marker, length = data[i + 1], struct.unpack(">H", data[i + 2 : i + 4])[0]
        if marker in (0xC0, 0xC1, 0xC2):
            height, width = struct.unpack(">HH", data[i + 5 : i + 9])
            return width, height
        i += 2 + length
    raise AssertionError("no start-of-frame marker")


class VisionModel(FakeLLM):
    """LLM double for role "vision": records what it is shown, answers a fixed sentence."""

    def __init__(self, answer: str) -> None:
        super().__init__([LLMReply(answer, (), 50, 10, "vision-model", 0.01, "stop")])
        self.answer = answer

    def image(self, call: int = -1) -> bytes:
        parts = self.prompts[call][0]["content"]
        url = next(p["image_url"]["url"] for p in parts if p["type"] == "image_url")
        return base64.b64decode(url.split(",", 1)[1])

    def text(self, call: int = -1) -> str:
        parts = self.prompts[call][0]["content"]
        return "\n".join(p["text"] for p in parts if p["type"] == "text")


def chart_url(probe_port: int) -> str:
    return f"http://127.0.0.1:{probe_port}/chart.html"


def ref_of(session: PageSession, name: str) -> str:
    assert session.last is not None
    return next(n.ref for n in session.last.nodes if n.interactive and n.name == name)


async def test_observation_carries_som_image_whose_tags_are_the_text_refs(
    page: Page, probe_port: int, chromium_path: str
) -> None:
    settings = Settings(chromium_path=chromium_path, llm_worker_vision=True)
    session = await PageSession.open(page, settings)
    await session.goto(chart_url(probe_port))
    await page.evaluate(RECORD_TAGS)

    obs = await session.observe("som")

    assert obs.image is not None and obs.image[:2] == b"\xff\xd8"
    refs = REF.findall(obs.text)
    # the four buttons and the canvas (a ref of its own since observation wave 5b)
    assert len(refs) == 5 and {v for v, _ in refs} == {str(obs.version)}
    assert f"[{obs.version}:{refs[0][1]}] canvas" in obs.text
    tags = await page.evaluate("() => window.__tags")
    # tag N drawn on ref version:N (each time the image is taken: a reused state is repainted
    # for a Worker that reads images, issue 27 item 7)
    assert tags and all(t == [n for _, n in refs] for t in tags)
    assert obs.stats["som"]["refs"] == [f"{v}:{n}" for v, n in refs]
    # the crop holds the canvas (values only as pixels) and the buttons, enlarged
    x, y, w, h = obs.stats["som"]["region"]
    canvas = await page.evaluate(
        "() => { const r = document.getElementById('chart').getBoundingClientRect();"
        " return [r.left, r.top, r.right, r.bottom]; }"
    )
    assert x <= canvas[0] and y <= canvas[1] and x + w >= canvas[2] and y + h >= canvas[3]
    scale = obs.stats["som"]["scale"]
    assert scale > 1 and jpeg_size(obs.image) == (round(w * scale), round(h * scale))
    left = await page.evaluate(
        "() => [document.querySelectorAll('[data-agent-id]').length,"
        " !!document.getElementById('webagent-som-root')]"
    )
    assert left == [0, False]

    again = await session.observe("som")  # nothing changed: the gate reuses the observation
    assert again.stats["reused"] is True and again.image == obs.image
    # a reused state is captured again for a Worker that reads images (issue 27 item 7: a page
    # its timers move gets a fresh image); the same pixels keep the same image, as above
    assert len(await page.evaluate("() => window.__tags")) == 2


async def test_changed_page_gets_a_new_image(
    page: Page, probe_port: int, chromium_path: str
) -> None:
    settings = Settings(chromium_path=chromium_path, llm_worker_vision=True)
    session = await PageSession.open(page, settings)
    await session.goto(chart_url(probe_port))
    first = await session.observe("compact")
    result = await session.execute(Action("click", {"ref": ref_of(session, "Q3")}))
    assert result.success
    second = await session.observe("compact")
    assert second.version > first.version and "Correct" in second.text
    assert second.image is not None and second.image != first.image


async def test_text_only_worker_gets_no_image(
    page: Page, probe_port: int, chromium_path: str
) -> None:
    session = await PageSession.open(page, Settings(chromium_path=chromium_path))
    await session.goto(chart_url(probe_port))
    obs = await session.observe("compact")
    assert obs.image is None and "som" not in obs.stats


async def test_look_at_a_ref_sends_an_enlarged_crop_to_the_vision_role(
    page: Page, probe_port: int, chromium_path: str
) -> None:
    model = VisionModel("The button reads Q3 on a light grey background.")
    settings = Settings(chromium_path=chromium_path, vision_enabled=True)
    session = await PageSession.open(page, settings, llm=model)
    await session.goto(chart_url(probe_port))
    await session.observe("compact")
    ref = ref_of(session, "Q3")

    result = await session.execute(Action("look", {"ref": ref, "question": "What colour?"}))

    assert result.success and result.data["answer"] == model.answer
    assert model.roles == ["vision"]
    box = await page.evaluate(
        "() => { const r = document.getElementById('q3').getBoundingClientRect();"
        " return [r.width, r.height]; }"
    )
    width, height = jpeg_size(model.image())
    # the button plus 24 px on each side, enlarged 3x: a crop, not the 1280 px screen
    # (whole CSS pixels: up to one more on each side when the box sits between pixels)
    assert 0 <= width - (box[0] + 48) * 3 <= 6 and 0 <= height - (box[1] + 48) * 3 <= 6
    assert ref in model.text() and "What colour?" in model.text()


async def test_look_at_the_screen_sends_outline_tags_named_by_ref(
    page: Page, probe_port: int, chromium_path: str
) -> None:
    model = VisionModel("The tallest bar is Q3 (red), tag 5.")
    settings = Settings(chromium_path=chromium_path, vision_enabled=True)
    session = await PageSession.open(page, settings, llm=model)
    await session.goto(chart_url(probe_port))
    obs = await session.observe("compact")
    await page.evaluate(RECORD_TAGS)

    result = await session.execute(Action("look", {"question": "Which bar is tallest?"}))

    assert result.success and "Q3" in result.data["answer"]
    width, height = jpeg_size(model.image())  # the content crop, not the 1280x800 viewport
    assert 700 <= width <= 1024 and 700 <= height <= 1024
    assert "cropped to its content" in model.text()
    assert f"tag N is element {obs.version}:N" in model.text()
    tags = await page.evaluate("() => window.__tags")
    assert tags == [[n for _, n in REF.findall(obs.text)]]
    assert await page.locator("#webagent-som-root").count() == 0


async def test_look_without_a_vision_model_is_refused(
    page: Page, probe_port: int, chromium_path: str
) -> None:
    session = await PageSession.open(page, Settings(chromium_path=chromium_path))
    await session.goto(chart_url(probe_port))
    await session.observe("compact")
    result = await session.execute(Action("look", {"question": "Which bar is tallest?"}))
    assert not result.success and result.error == "vision_unavailable"
    assert "WEBAGENT_VISION_ENABLED" in result.reason


STACKED = """<!doctype html><html><body style="margin:40px">
<button id="a" style="display:block;width:120px;height:30px">First</button>
<button id="b" style="display:block;width:120px;height:30px;margin-top:2px">Second</button>
</body></html>"""


async def test_tags_of_stacked_rows_do_not_cover_the_row_above(page: Page) -> None:
    await page.set_content(STACKED)
    boxes = await page.evaluate(
        "() => ['a', 'b'].map((id) => { const r = document.getElementById(id)"
        ".getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })"
    )
    await som.draw(page, [som.Mark("1", tuple(boxes[0])), som.Mark("2", tuple(boxes[1]))])
    tags = await page.evaluate(
        "() => [...document.getElementById('webagent-som-root').children].map((box) => {"
        " const r = box.firstChild.getBoundingClientRect(); return [r.left, r.top, r.right,"
        " r.bottom]; })"
    )
    first_bottom = boxes[0][1] + boxes[0][3]
    assert tags[0][3] <= boxes[0][1] + 1  # room above the first row: the tag sits there
    left, top, right, _ = tags[1]
    overlaps_first = top < first_bottom and left < boxes[0][0] + boxes[0][2]
    assert not overlaps_first and right <= boxes[1][0] + 1  # moved to the left of its box
