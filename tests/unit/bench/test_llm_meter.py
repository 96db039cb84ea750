"""The realapps bench's model pass-through (workers/bench/llm_meter.py) forwards each request
unchanged to the real endpoint, returns its answer unchanged, and counts the request's
o200k tokens with bench/request_tokens.py's counting."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest

from workers.bench.llm_meter import metered_endpoint
from workers.bench.realapps_catalog import DEFAULT_BENCH_DIR, Catalog

REQUEST = {
    "model": "m",
    "messages": [
        {"role": "system", "content": "You are terse."},
        {"role": "user", "content": "Hi"},
    ],
}


@pytest.fixture
def upstream() -> Iterator[tuple[str, list[Any]]]:
    seen: list[Any] = []

    class Echo(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["content-length"]))
            seen.append((self.path, self.headers.get("authorization"), json.loads(body)))
            answer = json.dumps({"choices": [{"message": {"content": "hello"}}]}).encode()
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Echo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1", seen
    server.shutdown()
    server.server_close()


def test_requests_are_forwarded_unchanged_and_counted_in_o200k(
    upstream: tuple[str, list[Any]],
) -> None:
    base, seen = upstream
    count = Catalog(DEFAULT_BENCH_DIR).request_counter()
    with metered_endpoint(base, count) as (url, meter):
        reply = httpx.post(
            f"{url}/chat/completions", json=REQUEST, headers={"Authorization": "Bearer k"}
        )
        httpx.post(f"{url}/chat/completions", json=REQUEST)
    assert reply.json() == {"choices": [{"message": {"content": "hello"}}]}
    assert seen[0] == ("/v1/chat/completions", "Bearer k", REQUEST)
    # "You are terse." is 4 o200k tokens, "Hi" 1, plus 4 of framing a message
    assert (meter.requests, meter.tokens) == (2, 2 * (4 + 4 + 1 + 4))
