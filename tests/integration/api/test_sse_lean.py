"""The lean SSE path (app/sse_lean.py): a stream that passes every check is served beside
the middleware stack, anything else is answered by the route as before (RFC 9457)."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app import metrics
from app.api import events as events_route
from tests.integration.api.conftest import add_event, finish, parse_sse
from tests.integration.api.test_auth_keys import BODY, L, R, W, bearer, keyed_app, new_key


def _route_must_not_serve(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("the generic route served a stream the lean path should have")


async def _finished_task(app: FastAPI, c: httpx.AsyncClient, key: str) -> str:
    tid = str((await c.post("/v1/tasks", json=BODY, headers=bearer(key))).json()["id"])
    await add_event(app, None, tid, 1, "task.started")
    await add_event(app, None, tid, 2, "step.started", step=1)
    await finish(app, tid)
    await add_event(app, None, tid, 3, "task.finished", status="succeeded")
    return tid


async def test_an_allowed_stream_takes_the_lean_path_with_resume(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with keyed_app(db_url) as (app, c):
        key = await new_key(app, "acme", W, R)
        tid = await _finished_task(app, c, key)
        monkeypatch.setattr(events_route, "EventSourceResponse", _route_must_not_serve)
        before = metrics.sample_value(
            "webagent_http_requests_total",
            {"method": "GET", "route": "/v1/tasks/{task_id}/events", "status": "200"},
        )
        full = await c.get(f"/v1/tasks/{tid}/events", headers=bearer(key))
        assert full.status_code == 200
        assert full.headers["content-type"].startswith("text/event-stream")
        assert full.headers["cache-control"] == "no-cache"
        messages = parse_sse(full.text)
        assert [(m["id"], m["event"]) for m in messages] == [
            ("1", "task.started"),
            ("2", "step.started"),
            ("3", "task.finished"),
        ]
        resumed = await c.get(
            f"/v1/tasks/{tid}/events", headers={**bearer(key), "Last-Event-ID": "1"}
        )
        assert [m["id"] for m in parse_sse(resumed.text)] == ["2", "3"]
        query = await c.get(
            f"/v1/tasks/{tid}/events",
            params={"after": 2},
            headers={**bearer(key), "Last-Event-ID": "1"},
        )
        assert [m["id"] for m in parse_sse(query.text)] == ["3"]  # the larger of the two
        after = metrics.sample_value(
            "webagent_http_requests_total",
            {"method": "GET", "route": "/v1/tasks/{task_id}/events", "status": "200"},
        )
        assert after - before == 3  # counted like every other request


async def test_refused_streams_get_the_routes_problem_answers(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with keyed_app(db_url) as (app, c):
        key = await new_key(app, "acme", W, R)
        other = await new_key(app, "globex", R)
        learner = await new_key(app, "acme", L)
        tid = await _finished_task(app, c, key)
        monkeypatch.setattr(events_route, "EventSourceResponse", _route_must_not_serve)
        path = f"/v1/tasks/{tid}/events"
        cases = [
            ({}, 401),
            (bearer("wa_bogus_key"), 401),
            (bearer(learner), 403),
            (bearer(other), 404),
            ({**bearer(key), "Last-Event-ID": "abc"}, 422),
        ]
        for headers, status in cases:
            response = await c.get(path, headers=headers)
            assert response.status_code == status, (headers, response.text)
            assert response.headers["content-type"].startswith("application/problem+json")
        bad_after = await c.get(path, params={"after": -1}, headers=bearer(key))
        assert bad_after.status_code == 422
        missing = await c.get(f"/v1/tasks/{'0' * 32}/events", headers=bearer(key))
        assert missing.status_code == 404


async def test_a_database_outage_ends_the_stream_with_a_reason_not_a_cut(
    db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32 item 6: a failed event read mid-stream ends the response cleanly with a last
    `stream.interrupted` message (reason, retry) after the events already sent; both the lean
    path and the route's generator."""
    from sqlalchemy.exc import OperationalError

    from app.event_stream import ReplayGate

    real_page = ReplayGate.page
    calls = {"n": 0}

    async def failing_page(self: ReplayGate, *args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] > 1:
            raise OperationalError("SELECT", {}, ConnectionRefusedError("connection refused"))
        return await real_page(self, *args, **kwargs)

    async with keyed_app(db_url, sse_db_poll_s=0.05) as (app, c):
        key = await new_key(app, "acme", W, R)
        tid = str((await c.post("/v1/tasks", json=BODY, headers=bearer(key))).json()["id"])
        await add_event(app, None, tid, 1, "task.started")
        monkeypatch.setattr(ReplayGate, "page", failing_page)
        lean = await c.get(f"/v1/tasks/{tid}/events", headers=bearer(key))
        assert lean.status_code == 200
        messages = parse_sse(lean.text)
        assert [m["event"] for m in messages] == ["task.started", "stream.interrupted"]
        assert "unavailable" in messages[-1]["data"] and messages[-1]["retry"] == "5000"

        calls["n"] = 0
        chunks = events_route._sse(
            tid, 0, events_route.get_replay_gate(_req(app)), app.state.bus, 0.05
        )
        body = b"".join([chunk async for chunk in chunks]).decode()
        assert [m["event"] for m in parse_sse(body)] == ["task.started", "stream.interrupted"]


def _req(app: FastAPI) -> Any:
    from starlette.requests import Request

    return Request({"type": "http", "app": app, "headers": []})
