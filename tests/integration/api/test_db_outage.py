"""Postgres unreachable: submit, get and SSE answer 503 JSON naming it, with Retry-After."""

from __future__ import annotations

import socket

import pytest

from app.events import MemoryEventBus
from app.main import create_app
from tests.integration.api.conftest import RecordingDispatcher, make_settings, running


def _closed_port() -> int:
    with socket.socket() as sock:  # bound then released: nothing listens there
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.mark.parametrize(
    ("method", "path"),
    [("POST", "/v1/tasks"), ("GET", "/v1/tasks/abc"), ("GET", "/v1/tasks/abc/events")],
)
async def test_database_down_is_a_503_json(method: str, path: str) -> None:
    url = f"postgresql+asyncpg://postgres@127.0.0.1:{_closed_port()}/webagent"
    app = create_app(make_settings(url), dispatcher=RecordingDispatcher(), bus=MemoryEventBus())
    async with running(app) as client:
        body = {"instruction": "go"} if method == "POST" else None
        resp = await client.request(method, path, json=body)
    assert resp.status_code == 503, resp.text
    assert resp.json()["unavailable"] == "database"
    assert int(resp.headers["Retry-After"]) > 0
