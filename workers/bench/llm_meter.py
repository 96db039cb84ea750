"""A counting pass-through in front of the model endpoint, for the realapps bench's token
figure: every request the service sends is counted in o200k_base tokens exactly as
bench/request_tokens.py counts a request (tools as compact JSON, message texts, 4 tokens of
framing a message; images apart), then forwarded unchanged to the real endpoint and its
answer returned unchanged. Providers' own usage figures differ by provider (the relay's are
characters / 4); this one is the same for every model.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx

Counter = Callable[[Mapping[str, Any]], int]
FORWARDED = ("authorization", "content-type", "accept")


class Meter:
    """Total o200k request tokens and requests seen so far (thread-safe)."""

    def __init__(self, count: Counter) -> None:
        self._count, self._lock = count, threading.Lock()
        self.tokens = self.requests = 0

    def add(self, body: bytes) -> None:
        try:
            request = json.loads(body)
            tokens = self._count(request) if isinstance(request, dict) else 0
        except ValueError:
            tokens = 0
        with self._lock:
            self.tokens += tokens
            self.requests += 1


def _handler(upstream: str, meter: Meter, client: httpx.Client) -> type[BaseHTTPRequestHandler]:
    class Forward(BaseHTTPRequestHandler):
        def _forward(self, method: str) -> None:
            length = int(self.headers.get("content-length") or 0)
            body = self.rfile.read(length) if length else b""
            if method == "POST":
                meter.add(body)
            path = self.path[len("/v1") :] if self.path.startswith("/v1") else self.path
            headers = {k: v for k, v in self.headers.items() if k.lower() in FORWARDED}
            try:
                reply = client.request(method, upstream + path, content=body, headers=headers)
            except httpx.HTTPError as exc:
                self.send_error(502, f"upstream: {exc}")
                return
            self.send_response(reply.status_code)
            self.send_header("content-type", reply.headers.get("content-type", "application/json"))
            self.send_header("content-length", str(len(reply.content)))
            self.end_headers()
            self.wfile.write(reply.content)

        def do_POST(self) -> None:
            self._forward("POST")

        def do_GET(self) -> None:
            self._forward("GET")

        def log_message(self, format: str, *args: Any) -> None:
            return  # quiet: the bench prints its own progress

    return Forward


@contextmanager
def metered_endpoint(upstream: str, count: Counter) -> Iterator[tuple[str, Meter]]:
    """(base URL of the pass-through, its meter) while the block runs."""
    meter = Meter(count)
    with httpx.Client(timeout=None) as client:
        server = ThreadingHTTPServer(
            ("127.0.0.1", 0), _handler(upstream.rstrip("/"), meter, client)
        )
        thread = threading.Thread(target=server.serve_forever, name="llm-meter", daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}/v1", meter
        finally:
            server.shutdown()
            server.server_close()
