"""The run page's live view and takeover (app/web/static/live.js) in real headless Chromium
against the embedded service: the worker's screencast shows on the run page, "Take over"
pauses the scripted agent, a click on the live picture lands on the worker's page (the
site counts it), "Hand back" lets the agent finish from the page the person left. The
viewer's page may reach 127.0.0.1 only (every other host is aborted and recorded); the
task's browser is limited to 127.0.0.1 by `allowed_domains`.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from playwright.async_api import expect
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse
from starlette.routing import Route

from bench.support import serve
from tests.integration.ui.conftest import ROUTES, OfflinePage, Viewer
from tests.support.llm_server import Reply, prompt_text, tool_reply
from tests.support.policies import latest_observation

pytestmark = pytest.mark.browser

TAKEOVER = "wait while a person on the viewer clicks the counter, then report it"
NOTE = "A person took over the browser"
PAGE = """<!doctype html><title>Counter</title>
<style>body { margin: 0; } #add { position: absolute; left: 0; top: 0; width: 50vw;
height: 40vh; font-size: 30px; } #count { position: absolute; top: 50vh; }</style>
<button id="add">Add one</button><p id="count">Clicks: 0</p>
<script>let n = 0; document.querySelector('#add').onclick = async () => {
  n += 1; document.querySelector('#count').textContent = 'Clicks: ' + n;
  await fetch('/clicked', {method: 'POST'}); };</script>"""


class Counter:
    def __init__(self) -> None:
        self.clicks = 0

    async def page(self, request: Request) -> HTMLResponse:
        return HTMLResponse(PAGE)

    async def clicked(self, request: Request) -> PlainTextResponse:
        self.clicks += 1
        return PlainTextResponse("ok")


def policy(request: dict[str, Any]) -> Reply:
    """Scroll slowly until the page is handed back, then report the counter."""
    if NOTE in prompt_text(request):
        found = re.search(r"Clicks: \d+", latest_observation(request))
        reply = tool_reply(("done", {"answer": found[0] if found else "none", "success": True}))
    else:
        reply = tool_reply(("scroll", {"direction": "down", "pixels": 10}))
    return replace(reply, delay_s=0.3)


@pytest.fixture(scope="module")
def counter() -> Iterator[tuple[Counter, str]]:
    ROUTES[TAKEOVER] = policy
    site = Counter()
    app = Starlette(
        routes=[Route("/counter", site.page), Route("/clicked", site.clicked, methods=["POST"])]
    )
    try:
        with serve(app) as origin:
            yield site, origin
    finally:
        ROUTES.pop(TAKEOVER, None)


async def test_watch_take_over_click_on_the_picture_and_hand_back(
    live_viewer: Viewer, counter: tuple[Counter, str], offline_page: OfflinePage
) -> None:
    site, origin = counter
    with live_viewer.client() as client:
        created = client.post(
            "/v1/tasks",
            json={
                "instruction": TAKEOVER,
                "start_url": f"{origin}/counter",
                "max_steps": 100,
                "allowed_domains": ["127.0.0.1"],
            },
        )
        assert created.status_code == 202, created.text
    task_id = created.json()["id"]
    page = offline_page.page
    await page.goto(f"{live_viewer.base_url}/runs/{task_id}")
    picture = page.locator("#live-frame")
    await expect(page.locator("#live-view")).to_be_visible()
    await expect(picture).to_have_attribute("data-frames", re.compile(r"\d+"), timeout=30_000)
    await expect(page.locator("#live-state")).to_have_text("The agent is acting.")

    await page.click("#take-over")
    await expect(page.locator("#run")).to_have_attribute("data-control", "person", timeout=30_000)
    await expect(page.locator("#hand-back")).to_be_visible()
    box = await picture.bounding_box()
    assert box is not None and box["width"] > 100
    before = site.clicks
    await picture.click(position={"x": box["width"] * 0.25, "y": box["height"] * 0.2})
    async with asyncio.timeout(15):  # the worker's page tells the site about the click
        while site.clicks != before + 1:
            await asyncio.sleep(0.1)

    await page.click("#hand-back")
    await expect(page.locator("#status")).to_have_text("succeeded", timeout=30_000)
    await expect(page.locator("#final-answer")).to_have_text("Clicks: 1")
    await expect(page.locator("#live-view")).to_be_hidden(timeout=15_000)
    assert offline_page.blocked == []
