"""A site with a login that lives in a cookie and a preference that lives in localStorage.

GET /login?user=NAME sets the `session` cookie (HttpOnly) and, by script, localStorage
`theme`; GET /account says "Signed in as NAME" for a valid cookie (else "Please sign in")
and shows the stored theme; GET /down answers 503. Served on 127.0.0.1 only.
"""

from __future__ import annotations

import html
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support.background import BackgroundServer

PAGE = """<!doctype html><html><head><title>{title}</title></head><body>
<h1>{heading}</h1><p id="theme">theme: unknown</p>
<script>{script}
document.getElementById('theme').textContent =
  'theme: ' + (localStorage.getItem('theme') || 'none');</script>
</body></html>"""


class LoginSite(BackgroundServer):
    def __init__(self) -> None:
        self.sessions: dict[str, str] = {}  # cookie value -> user
        site = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                status, headers, body = site.answer(self.path, self.headers.get("cookie", ""))
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("content-type", "text/html; charset=utf-8")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        super().__init__(Handler)

    def url(self, path: str) -> str:
        return self.origin + path

    def answer(self, path: str, cookie: str) -> tuple[int, list[tuple[str, str]], bytes]:
        parts = urlsplit(path)
        if parts.path == "/down":
            return 503, [], b"<h1>Service unavailable</h1>"
        if parts.path == "/login":
            user = parse_qs(parts.query).get("user", ["alice"])[0]
            token = f"tok-{len(self.sessions) + 1}"
            self.sessions[token] = user
            set_theme = f"localStorage.setItem('theme', 'dark-{html.escape(user)}');"
            page = PAGE.format(title="Welcome", heading=f"Welcome {user}", script=set_theme)
            return 200, [("set-cookie", f"session={token}; Path=/; HttpOnly")], page.encode()
        if parts.path == "/account":
            token = dict(p.strip().split("=", 1) for p in cookie.split(";") if "=" in p).get(
                "session"
            )
            user = self.sessions.get(token or "")
            heading = f"Signed in as {user}" if user else "Please sign in"
            return 200, [], PAGE.format(title="Account", heading=heading, script="").encode()
        return 404, [], b"<h1>Not found</h1>"
