"""A multi-page order desk with a failing path and a working one, and a scripted model for it.

Site (127.0.0.1, port 0):
  /desk/            "Order desk": links "Quick order" (the failing path) and "Catalogue"
  /desk/quick       "Quick order is unavailable right now." and a link back to the desk
  /desk/step/<n>    catalogue pages 1..STAGES, each with a "Continue" link (and "Back to desk")
  /desk/done        "Order confirmed. Code: Q-4821"

`quest_policy` reads only the prompt like a real model: at the desk it takes "Quick order"
unless the Ledger in its prompt lists that click as a dead end; on the unavailable page it
says its previous move failed (evaluation_previous_goal "Failed: ...") and goes back; in the
catalogue it continues; on the confirmation page it calls done with the code. A first run is
1 + 1 + 1 + STAGES + 1 steps (14 with STAGES = 10); a run that starts with the dead end
skips the first two.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.background import BackgroundServer
from tests.support.llm_server import Reply, tool_reply
from tests.support.policies import find_ref, has_element, latest_observation

STAGES = 10
CODE = "Q-4821"
QUEST = "place an order at the order desk and report the confirmation code"
DEAD_QUICK_ORDER = 'click link "Quick order"'
_LEDGER = re.compile(r"<ledger>\n(.*?)\n</ledger>", re.DOTALL)


def _page(title: str, body: str) -> bytes:
    return f"<!doctype html><title>{title}</title><h1>{title}</h1>{body}".encode()


def _render(path: str) -> bytes | None:
    if path in ("/desk", "/desk/"):
        return _page(
            "Order desk",
            '<p>Choose how to order.</p><a href="/desk/quick">Quick order</a> '
            '<a href="/desk/step/1">Catalogue</a>',
        )
    if path == "/desk/quick":
        return _page(
            "Quick order",
            '<p>Quick order is unavailable right now.</p><a href="/desk/">Back to desk</a>',
        )
    if path == "/desk/done":
        return _page("Order confirmed", f"<p>Order confirmed. Code: {CODE}</p>")
    match = re.fullmatch(r"/desk/step/(\d+)", path)
    if match and 1 <= int(match[1]) <= STAGES:
        n = int(match[1])
        target = f"/desk/step/{n + 1}" if n < STAGES else "/desk/done"
        return _page(
            f"Catalogue page {n}",
            f'<p>Stage {n} of {STAGES} checked.</p><a href="{target}">Continue</a> '
            '<a href="/desk/">Back to desk</a>',
        )
    return None


class QuestSite(BackgroundServer):
    def __init__(self) -> None:
        self.visits: list[str] = []
        self._lock = threading.Lock()
        super().__init__(self._handler())

    def url(self, path: str) -> str:
        return self.origin + path

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                path = self.path.split("?", 1)[0]
                with site._lock:
                    site.visits.append(path)
                body = _render(path)
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                data = body or b"not found"
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler


def ledger_text(request: dict[str, Any]) -> str:
    """The rendered Ledger block of the request ('' when none)."""
    for message in request.get("messages", []):
        content = message.get("content")
        if isinstance(content, str) and (match := _LEDGER.search(content)):
            return match[1]
    return ""


def _act(notes: dict[str, str], *calls: tuple[str, dict[str, Any]]) -> Reply:
    reply = tool_reply(*calls)
    return Reply(json.dumps(notes), reply.tool_calls, reply.finish_reason)


def quest_policy(request: dict[str, Any]) -> Reply:
    obs = latest_observation(request)
    if f"Code: {CODE}" in obs:
        return tool_reply(("done", {"answer": CODE, "success": True}))
    if "Quick order is unavailable" in obs:
        notes = {
            "evaluation_previous_goal": "Failed: quick order is unavailable",
            "memory": "quick order does not work",
            "next_goal": "go back and use the catalogue",
        }
        return _act(notes, ("click", {"ref": find_ref(obs, "link", "Back to desk")}))
    if has_element(obs, "link", "Continue"):
        return _act(
            {"next_goal": "continue"}, ("click", {"ref": find_ref(obs, "link", "Continue")})
        )
    if has_element(obs, "link", "Quick order"):
        if DEAD_QUICK_ORDER in ledger_text(request):
            return _act(
                {"memory": "quick order is a dead end"},
                ("click", {"ref": find_ref(obs, "link", "Catalogue")}),
            )
        return _act(
            {"next_goal": "try quick order"},
            ("click", {"ref": find_ref(obs, "link", "Quick order")}),
        )
    return tool_reply(("done", {"answer": "lost", "success": False}))
