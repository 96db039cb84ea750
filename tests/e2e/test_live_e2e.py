"""Live view and takeover end to end over HTTP (issue 23 item 2) in both deployments
(embedded: one process; production: API here, a `webagent worker` subprocess, Redis between
them), headless Chromium, the task's browser limited to 127.0.0.1 (`allowed_domains`: every
other host is refused by the request guard).

A viewer's SSE stream gets JPEG frames of the page; "Take over" pauses the scripted agent
between steps; a click on the live view lands on the page (the site counts it); "Hand back"
resumes the agent, which reads a note of what the person did and answers from the page.
"""

from __future__ import annotations

import base64
import json
import queue
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse
from starlette.routing import Route

from bench.support import serve
from tests.e2e.conftest import ROUTES, Service, submit, wait_for, wait_terminal
from tests.support.llm_server import Reply, prompt_text, tool_reply
from tests.support.policies import latest_observation

LIVE = "wait while a person clicks the counter, then report the count"
NOTE = "A person took over the browser"
PAGE = """<!doctype html><title>Counter</title>
<style>body { margin: 0; } #add { position: absolute; left: 0; top: 0; width: 50vw;
height: 40vh; font-size: 30px; } #count { position: absolute; top: 50vh; }</style>
<button id="add">Add one</button><p id="count">Clicks: 0</p>
<script>let n = 0; document.querySelector('#add').onclick = async () => {
  n += 1; document.querySelector('#count').textContent = 'Clicks: ' + n;
  await fetch('/clicked', {method: 'POST'}); };</script>"""


class Site:
    def __init__(self) -> None:
        self.clicks = 0
        self.url = ""

    async def page(self, request: Request) -> HTMLResponse:
        return HTMLResponse(PAGE)

    async def clicked(self, request: Request) -> PlainTextResponse:
        self.clicks += 1
        return PlainTextResponse("ok")

    def app(self) -> Starlette:
        return Starlette(
            routes=[Route("/counter", self.page), Route("/clicked", self.clicked, methods=["POST"])]
        )


def policy(request: dict[str, Any]) -> Reply:
    """Scroll (slowly) until a person has handed the page back, then report the counter."""
    if NOTE in prompt_text(request):
        found = re.search(r"Clicks: \d+", latest_observation(request))
        return tool_reply(("done", {"answer": found[0] if found else "none", "success": True}))
    return tool_reply(("scroll", {"direction": "down", "pixels": 10}), content="waiting")


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    ROUTES[LIVE] = lambda request: _slow(policy(request))
    counter = Site()
    try:
        with serve(counter.app()) as url:
            counter.url = url
            yield counter
    finally:
        ROUTES.pop(LIVE, None)


def _slow(reply: Reply) -> Reply:
    return replace(reply, delay_s=0.3)


class Viewer:
    """The live stream read on a thread, as a browser's EventSource would."""

    def __init__(self, base_url: str, task_id: str) -> None:
        self.messages: queue.Queue[tuple[str, dict[str, Any]]] = queue.Queue()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._read, args=(base_url, task_id), daemon=True)
        self.thread.start()

    def _read(self, base_url: str, task_id: str) -> None:
        with (
            httpx.Client(base_url=base_url, timeout=60) as client,
            client.stream("GET", f"/v1/tasks/{task_id}/live") as response,
        ):
            assert response.status_code == 200, response.read()
            event = ""
            for line in response.iter_lines():
                if self.stop.is_set():
                    return
                if line.startswith("event:"):
                    event = line.split(":", 1)[1].strip()
                elif line.startswith("data:"):
                    self.messages.put((event, json.loads(line.split(":", 1)[1])))

    def next(self, kind: str, **match: Any) -> dict[str, Any]:
        deadline = time.monotonic() + 30
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no live {kind} message {match}"
            try:
                event, data = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if event == kind and match.items() <= data.items():
                return data


def _until(check: Any, what: str) -> None:
    deadline = time.monotonic() + 30
    while not check():
        assert time.monotonic() < deadline, what
        time.sleep(0.1)


def test_watch_take_over_click_and_hand_back(service: Service, site: Site) -> None:
    with service.client() as client:
        before = site.clicks
        task_id = submit(
            client, LIVE, f"{site.url}/counter", max_steps=100, allowed_domains=["127.0.0.1"]
        )
        wait_for(client, task_id, ("running",))
        viewer = Viewer(service.base_url, task_id)
        try:
            frame = viewer.next("frame")
            assert base64.b64decode(frame["jpeg"]).startswith(b"\xff\xd8")
            assert frame["width"] > 0 and frame["height"] > 0
            assert client.post(f"/v1/tasks/{task_id}/live/takeover").status_code == 202
            viewer.next("control", by="person")
            click = {"kind": "click", "x": 0.25, "y": 0.2}
            assert client.post(f"/v1/tasks/{task_id}/live/input", json=click).status_code == 202
            _until(lambda: site.clicks == before + 1, "the person's click never reached the page")
            assert client.post(f"/v1/tasks/{task_id}/live/handback").status_code == 202
            final = wait_terminal(client, task_id)
        finally:
            viewer.stop.set()
        ledger = client.get(f"/v1/tasks/{task_id}/ledger").json()
    assert (final["status"], final["result"]["answer"]) == ("succeeded", "Clicks: 1"), final
    notes = [n for n in ledger["episodic"] if n["kind"] == "person"]
    assert len(notes) == 1 and "1 click" in notes[0]["text"], ledger["episodic"]
    events = [(r.type, dict(r.data)) for r in service.stored_events(task_id)]
    ended = [d for t, d in events if t == "takeover.ended"]
    assert ended and ended[0]["acts"] == {"click": 1, "wheel": 0, "key": 0}, events
    assert any(t == "takeover.started" for t, _ in events)
