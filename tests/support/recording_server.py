"""Local HTTP servers that record every request, and a fake network that routes to them.

For tests that must prove what a browser sent where: the SSRF corpus and the
prompt-injection suite run the real BrowserPool with `FakeNetwork.resolve`/`connect`, so
made-up hosts (shop.test, a.test, ...) resolve to public-looking addresses whose
connections reach these servers.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# (status, headers, body) for one request, given its method and path
Answer = tuple[int, dict[str, str], bytes]
PLAIN = b"<html><body><p>recorded</p></body></html>"


def plain_page(method: str, path: str) -> Answer:
    return 200, {"Content-Type": "text/html; charset=utf-8"}, PLAIN


@dataclass
class RecordingServer:
    """One local HTTP server on 127.0.0.1: records "METHOD path body" of every request and
    answers with `respond(method, path)`. A context manager; `start()` also returns it."""

    respond: Callable[[str, str], Answer] = plain_page
    port: int = 0
    requests: list[str] = field(default_factory=list)
    _server: ThreadingHTTPServer | None = None

    def hits(self, method: str, path: str) -> int:
        """How many requests had this method and path (query included)."""
        return sum(1 for r in self.requests if r.startswith(f"{method} {path} "))

    def start(self) -> RecordingServer:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.port = self._server.server_address[1]
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def close(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> RecordingServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode("utf-8", "replace") if length else ""
                recorder.requests.append(f"{self.command} {self.path} {body}")
                status, headers, content = recorder.respond(self.command, self.path)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)

            do_GET = do_POST = _answer

            def log_message(self, *args: object) -> None:
                return

        return Handler


@dataclass
class FakeNetwork:
    """The pool's resolver and connector for a test: `dns` names -> addresses; a connection
    to an address in `routes` reaches that local server; loopback addresses are dialled for
    real when `loopback` (a canary there must see no hits); anything else is unreachable."""

    dns: Mapping[str, list[str]]
    routes: Mapping[str, RecordingServer]
    loopback: bool = False

    def resolve(self, host: str) -> list[str]:
        if host in self.dns:
            return self.dns[host]
        raise OSError(f"unknown host {host}")

    async def connect(
        self, address: str, port: int
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        if address in self.routes:
            port = self.routes[address].port
        elif not (self.loopback and address in ("127.0.0.1", "::1", "::ffff:127.0.0.1")):
            raise OSError(f"no route to {address} in this test")
        return await asyncio.open_connection("127.0.0.1", port)
