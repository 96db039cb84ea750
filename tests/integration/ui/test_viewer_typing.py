"""Typing on the run page's live picture (issue 37 item 1) in real headless Chromium against
the embedded service: keys typed as a burst (no delay between them) and at 10 ms apart
reach the worker's page in the order typed, through app/web/static/live.js, the HTTP API and
the worker's live room. The site records the field's value as the worker's page has it."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from playwright.async_api import Page, expect
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse
from starlette.routing import Route

from bench.support import serve
from tests.integration.ui.conftest import ROOT, ROUTES, OfflinePage, Viewer
from tests.support.llm_server import Reply, prompt_text, tool_reply

pytestmark = pytest.mark.browser

TYPING = "wait while a person on the viewer types into the field, then say you are done"
NOTE = "A person took over"
TYPED = "hello agent, again"
PAGE = """<!doctype html><title>Field</title>
<style>body { margin: 0; } #name { position: absolute; left: 0; top: 0; width: 60vw;
height: 30vh; font-size: 30px; }</style>
<input id="name" aria-label="Name">
<script>document.querySelector('#name').oninput = (e) =>
  fetch('/typed', {method: 'POST', body: e.target.value});</script>"""


class Field:
    def __init__(self) -> None:
        self.value = ""

    async def page(self, request: Request) -> HTMLResponse:
        return HTMLResponse(PAGE)

    async def typed(self, request: Request) -> PlainTextResponse:
        value = (await request.body()).decode()
        if len(value) >= len(self.value):  # the requests of one burst may cross
            self.value = value
        return PlainTextResponse("ok")


def policy(request: dict[str, Any]) -> Reply:
    """Scroll slowly until the page is handed back, then finish."""
    if NOTE in prompt_text(request):
        reply = tool_reply(("done", {"answer": "typed", "success": True}))
    else:
        reply = tool_reply(("scroll", {"direction": "down", "pixels": 10}))
    return replace(reply, delay_s=0.3)


@pytest.fixture(scope="module")
def field() -> Iterator[tuple[Field, str]]:
    ROUTES[TYPING] = policy
    site = Field()
    app = Starlette(
        routes=[Route("/field", site.page), Route("/typed", site.typed, methods=["POST"])]
    )
    try:
        with serve(app) as origin:
            yield site, origin
    finally:
        ROUTES.pop(TYPING, None)


async def _docs_shot(page: Page, name: str) -> None:
    """With WEBAGENT_DOCS_SCREENSHOTS=1, the viewport as docs/img/`name` (docs/viewer.md)."""
    if os.environ.get("WEBAGENT_DOCS_SCREENSHOTS") == "1":
        await page.screenshot(path=str(ROOT / "docs" / "img" / name))


async def _value_reaches(site: Field, length: int) -> str:
    async with asyncio.timeout(20):  # the worker's page reports each change of the field
        while len(site.value) < length:
            await asyncio.sleep(0.05)
    return site.value


async def test_keys_typed_as_a_burst_on_the_picture_arrive_in_order(
    live_viewer: Viewer, field: tuple[Field, str], offline_page: OfflinePage
) -> None:
    site, origin = field
    with live_viewer.client() as client:
        created = client.post(
            "/v1/tasks",
            json={
                "instruction": TYPING,
                "start_url": f"{origin}/field",
                "max_steps": 200,
                "allowed_domains": ["127.0.0.1"],
            },
        )
        assert created.status_code == 202, created.text
    page = offline_page.page
    await page.goto(f"{live_viewer.base_url}/runs/{created.json()['id']}")
    picture = page.locator("#live-frame")
    await expect(picture).to_have_attribute("data-frames", re.compile(r"\d+"), timeout=30_000)
    await page.click("#take-over")
    await expect(page.locator("#run")).to_have_attribute("data-control", "person", timeout=30_000)
    # the task's clock stands still while the person has the page, and the panel says so
    clock = re.compile(r"clock is stopped with \d+:\d\d left for the agent; it runs again in")
    await expect(page.locator("#live-state")).to_contain_text(clock)
    box = await picture.bounding_box()
    back = await page.locator("#hand-back").bounding_box()
    assert box is not None and back is not None
    assert back["y"] + back["height"] <= box["y"]  # above a tall picture, not below it
    await picture.click(position={"x": box["width"] * 0.2, "y": box["height"] * 0.1})

    await page.keyboard.type("hello agent")  # a burst: no delay between the keys
    assert await _value_reaches(site, len("hello agent")) == "hello agent"
    await page.keyboard.type(", again", delay=10)
    assert await _value_reaches(site, len(TYPED)) == TYPED
    await _docs_shot(page, "takeover-live.png")

    await page.click("#hand-back")
    await expect(page.locator("#status")).to_have_text("succeeded", timeout=30_000)

    # the finished run's timeline shows the takeover as a span, with the page at hand-back
    await page.reload()
    span = page.locator("#steps .takeover")
    await expect(span).to_have_count(1)
    await expect(span).to_have_attribute("data-state", "handed-back")
    held = re.compile(r"A person had the page from .+: 1 click, 18 key presses; handed back at")
    await expect(span).to_contain_text(held)
    shot = span.locator("img")
    await expect(shot).to_have_js_property("complete", True)
    assert await shot.evaluate("img => img.naturalWidth") > 100
    await span.scroll_into_view_if_needed()
    await _docs_shot(page, "takeover-span.png")
    assert offline_page.blocked == []
