"""A request the HTTP parser refuses gets problem details like every other 4xx (issue 32,
item 6; app/http_protocol.py).

A NUL byte in a header never reaches the app or a middleware: uvicorn's parser answers it.
The server is started the way `webagent serve` starts it (its uvicorn arguments, with the
API app), and the raw answer is read off the socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI

from app.settings import Settings
from workers.cli.commands import service


def serve_arguments(monkeypatch: pytest.MonkeyPatch, app: FastAPI, settings: Settings) -> Any:
    """What `webagent serve` hands uvicorn.run (the app it would build is `app`)."""
    seen: dict[str, Any] = {}
    monkeypatch.setattr(uvicorn, "run", lambda served, **kw: seen.update(kw))
    monkeypatch.setattr(service, "get_settings", lambda: settings)
    monkeypatch.setattr(service, "configure_logging", lambda _: None)
    monkeypatch.setattr("workers.process.embedded.build_app", lambda _: app)
    service.serve(host="127.0.0.1", port=8999)
    assert seen["host"] == "127.0.0.1"
    return seen


@contextlib.asynccontextmanager
async def served(app: FastAPI, arguments: dict[str, Any]) -> AsyncIterator[int]:
    """The app on an ephemeral port with the serve command's uvicorn arguments."""
    kept = {k: v for k, v in arguments.items() if k not in ("host", "port")}
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", **kept)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.01)
        yield server.servers[0].sockets[0].getsockname()[1]
    finally:
        server.should_exit = True
        await task


async def raw(port: int, request: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send `request` as it is; the status, headers and body of the answer."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    writer.write(request)
    await writer.drain()
    answer = await reader.read()  # the server closes after a refused request
    writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines)}
    return int(status_line.split()[1]), headers, body


async def test_a_nul_byte_in_a_header_gets_problem_details(
    monkeypatch: pytest.MonkeyPatch, app: FastAPI, settings: Settings
) -> None:
    arguments = serve_arguments(monkeypatch, app, settings)
    async with served(app, arguments) as port:
        status, headers, body = await raw(
            port, b"GET /v1/tasks HTTP/1.1\r\nHost: api\r\nX-Note: a\x00b\r\n\r\n"
        )
        other, other_headers, other_body = await raw(
            port, b"GET /no-such-route HTTP/1.1\r\nHost: api\r\nConnection: close\r\n\r\n"
        )
    assert status == 400
    assert headers["content-type"] == "application/problem+json", headers
    problem = json.loads(body)
    assert problem["status"] == 400 and problem["code"] == "bad_request", problem
    assert "malformed" in problem["detail"]
    # the same shape as the app's own problems (a 404 from the app on the same server)
    assert other == 404 and other_headers["content-type"] == "application/problem+json"
    assert set(json.loads(other_body)) == set(problem)
