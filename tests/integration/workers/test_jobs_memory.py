"""Memory across runs end to end (issue 21): run 1 on a local multi-page shop (a cookie
banner, a filter link carrying state in its query) records a consent dismissal, a URL
template and a verified route win; run 2, a similar task with another value, uses the learned
URL pattern to go straight to the filtered page — with fewer model calls. After the site is
forgotten the same direct navigation is refused as a guess. Real Chromium, the scripted LLM
server, SQLite and Postgres."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.contracts import TaskStatus
from app.db import repositories
from tests.integration.workers.conftest import new_task
from tests.integration.workers.test_jobs import embedded, wait_terminal
from tests.support.llm_server import Reply, ScriptedLLMServer, tool_reply
from workers.process.embedded import EmbeddedWorkers

pytestmark = [pytest.mark.browser, pytest.mark.services]
__all__ = ["embedded"]

Sessions = async_sessionmaker[AsyncSession]
PRICES = {"red": "12 EUR", "blue": "15 EUR"}
HOME = """<!doctype html><title>Kettles</title>
<div id=banner role=dialog aria-label="Cookie consent"><p>We use cookies.</p>
<button onclick="document.getElementById('banner').remove()">Accept all</button></div>
<h1>Kettles</h1><a href="/search?color=red">Red kettles</a>"""
RESULTS = (
    "<!doctype html><title>{color} kettles</title><h1>{color} kettle</h1><p>Price: {price}</p>"
)


def _handler() -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            color = (parse_qs(parts.query).get("color") or [""])[0]
            if parts.path == "/":
                status, body = 200, HOME
            elif parts.path == "/search" and color in PRICES:
                status, body = 200, RESULTS.format(color=color, price=PRICES[color])
            else:
                status, body = 404, "<title>Not found</title>"
            self.send_response(status)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(body.encode())

        def log_message(self, *args: object) -> None:
            return

    return Handler


@pytest.fixture
def shop() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler())
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


def _text(request: dict[str, Any]) -> str:
    return json.dumps(request.get("messages", [])).replace('\\"', '"')


def _ref(text: str, role: str, name: str) -> str | None:
    found = re.findall(rf"\[(\d+:\d+)\] {role} \"{re.escape(name)}\"", text)
    return found[-1] if found else None


def run_one(request: dict[str, Any]) -> Reply:
    """Accept the cookies, follow the filter link, read the price."""
    text = _text(request)
    if "Price: 12 EUR" in text:
        return tool_reply(("done", {"answer": "12 EUR", "success": True}))
    accept = _ref(text, "button", "Accept all")
    if accept is not None:
        return tool_reply(("click", {"ref": accept}))
    link = _ref(text, "link", "Red kettles")
    if link is not None:
        return tool_reply(("click", {"ref": link}))
    return tool_reply(("done", {"answer": "lost", "success": False}))


def run_two(base: str):  # type: ignore[no-untyped-def]
    """Go straight to the blue filter when the URL pattern is known, else give up."""

    def policy(request: dict[str, Any]) -> Reply:
        text = _text(request)
        if "Price: 15 EUR" in text:
            return tool_reply(("done", {"answer": "15 EUR", "success": True}))
        if "guessed URL" in text:
            return tool_reply(("done", {"answer": "cannot guess the URL", "success": False}))
        return tool_reply(("navigate", {"url": f"{base}/search?color=blue"}))

    return policy


async def _run(workers: EmbeddedWorkers, sessions: Sessions, url: str, instruction: str) -> Any:
    task_id = await new_task(sessions, start_url=url, max_steps=6, instruction=instruction)
    workers.submit(task_id)
    return await wait_terminal(sessions, task_id)


async def test_run_two_uses_what_run_one_learned(
    embedded: tuple[EmbeddedWorkers, Any],
    sessions: Sessions,
    llm_server: ScriptedLLMServer,
    shop: str,
) -> None:
    workers, _ = embedded
    async with sessions() as s:  # other tests of the session also ran on 127.0.0.1
        await repositories.forget_domain(s, tenant_id="default", domain="127.0.0.1")
        await s.commit()
    llm_server.set_policy(run_one)
    first = await _run(workers, sessions, f"{shop}/", "find the price of the red kettle")
    assert first.status == TaskStatus.succeeded and first.answer == "12 EUR", first.error_detail
    calls_one = len(llm_server.requests)
    async with sessions() as s:
        learned = await repositories.get_domain_learnings(
            s, tenant_id="default", domain="127.0.0.1"
        )
        rows = await repositories.list_domain_learnings(s, tenant_id="default", domain="127.0.0.1")
    assert [t["pattern"] for t in learned["url_templates"]] == ["/search?color=*"]
    assert learned["popups"][0]["name"] == "Accept all"
    assert learned["route_stats"] == {"browser": [1, 1]}
    assert all(first.id in (r.task_ids or []) for r in rows if r.key != "click_tier")

    llm_server.requests.clear()
    llm_server.set_policy(run_two(shop))
    second = await _run(workers, sessions, f"{shop}/", "find the price of the blue kettle")
    assert second.status == TaskStatus.succeeded and second.answer == "15 EUR", second.error_detail
    calls_two = len(llm_server.requests)
    assert calls_two < calls_one
    async with sessions() as s:  # the known consent banner went before the first look
        events = await repositories.list_events(s, task_id=second.id)
    dismissed = [e.data for e in events if e.data.get("action") == "dismiss_popup"]
    assert dismissed and dismissed[0]["success"] and dismissed[0]["step"] == 0
    page = str(llm_server.requests[0]["messages"][-1]["content"])  # the first observation
    assert "Red kettles" in page and 'button "Accept all"' not in page
    first_prompt = _text(llm_server.requests[0])
    fenced = first_prompt.split('<page_content untrusted="true">')
    assert any("/search?color=*" in part.split("</page_content>")[0] for part in fenced[1:])

    async with sessions() as s:  # forget the site: the same guess is refused with why
        await repositories.forget_domain(s, tenant_id="default", domain="127.0.0.1")
        await s.commit()
    llm_server.requests.clear()
    cold = await _run(workers, sessions, f"{shop}/", "find the price of the blue kettle")
    assert cold.status == TaskStatus.failed or not cold.success
    assert any("guessed URL" in _text(r) for r in llm_server.requests)
