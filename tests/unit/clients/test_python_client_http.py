"""clients/python over a scripted transport: problem bodies become typed exceptions, and a
dropped event stream resumes with Last-Event-ID without repeating an event (sync and async).
The same client against the running service: tests/e2e/test_sdk_e2e.py."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from webagent_client import (
    ApiError,
    AsyncClient,
    Client,
    NotFoundError,
    RateLimitedError,
    ValidationFailedError,
)

PROBLEM = "application/problem+json"


def _problem(status: int, code: str, **extra: object) -> httpx.Response:
    body = {
        "type": f"urn:webagent:problem:{code}",
        "title": "x",
        "status": status,
        "detail": f"{code} detail",
        "instance": "/v1/tasks/t1",
        "code": code,
        **extra,
    }
    return httpx.Response(status, json=body, headers={"content-type": PROBLEM})


def _message(seq: int, type_: str) -> bytes:
    event = {"id": f"e{seq}", "task_id": "t1", "seq": seq, "ts": "2026-01-01T00:00:00Z"}
    data = json.dumps({**event, "type": type_, "data": {}})
    return f"event: {type_}\nid: {seq}\ndata: {data}\n\n".encode()


class _Body(httpx.SyncByteStream, httpx.AsyncByteStream):
    """Sends `chunks`, then drops the connection when `drop`."""

    def __init__(self, chunks: list[bytes], drop: bool) -> None:
        self._chunks, self._drop = chunks, drop

    def __iter__(self) -> Iterator[bytes]:
        yield from self._chunks
        if self._drop:
            raise httpx.RemoteProtocolError("peer closed connection")

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for chunk in self._chunks:
            yield chunk
        if self._drop:
            raise httpx.RemoteProtocolError("peer closed connection")


def _stream_server() -> tuple[httpx.MockTransport, list[str | None]]:
    """First connection: events 1-2 then a drop; the second replays from the header."""
    resumed_from: list[str | None] = []

    def handle(request: httpx.Request) -> httpx.Response:
        resumed_from.append(request.headers.get("Last-Event-ID"))
        if len(resumed_from) == 1:
            body = [_message(1, "task.started"), _message(2, "step.started")]
            return httpx.Response(200, stream=_Body(body, drop=True))
        after = int(resumed_from[-1] or 0)
        every = [(1, "task.started"), (2, "step.started"), (3, "task.finished")]
        body = [_message(seq, t) for seq, t in every if seq > after - 1]  # one repeated
        return httpx.Response(200, stream=_Body(body, drop=False))

    return httpx.MockTransport(handle), resumed_from


def _errors(request: httpx.Request) -> httpx.Response:
    if request.url.path == "/v1/tasks/missing":
        return _problem(404, "not_found")
    if request.url.path == "/v1/profiles":
        loc = ["body", "name"]
        field = {"loc": loc, "msg": "String should match pattern", "type": "string_pattern"}
        return _problem(422, "validation_failed", errors=[field])
    if request.url.path == "/v1/tasks":
        response = _problem(429, "rate_limited")
        response.headers["Retry-After"] = "7"
        return response
    return httpx.Response(502, text="<html>bad gateway</html>")


def test_problem_bodies_raise_typed_errors() -> None:
    with Client("http://api.test", transport=httpx.MockTransport(_errors)) as client:
        with pytest.raises(NotFoundError) as missing:
            client.get_task("missing")
        with pytest.raises(ValidationFailedError) as invalid:
            client.create_profile("bad name")
        with pytest.raises(RateLimitedError) as limited:
            client.list_tasks()
        with pytest.raises(ApiError) as gateway:
            client.get_task("other")
    assert missing.value.status_code == 404 and missing.value.code == "not_found"
    assert missing.value.detail == "not_found detail"
    assert [e.loc for e in invalid.value.errors] == [["body", "name"]]
    assert "body.name: String should match pattern" in str(invalid.value)
    assert limited.value.retry_after == 7.0
    assert type(gateway.value) is ApiError and gateway.value.problem is None
    assert gateway.value.status_code == 502 and gateway.value.code == ""


def test_sync_events_resume_after_a_drop_without_repeats() -> None:
    transport, resumed_from = _stream_server()
    with Client("http://api.test", transport=transport, reconnect_delay_s=0) as client:
        events = list(client.events("t1"))
    assert [(e.seq, e.type) for e in events] == [
        (1, "task.started"),
        (2, "step.started"),
        (3, "task.finished"),
    ]
    assert resumed_from == [None, "2"]


def test_sync_events_after_a_seq_send_it_as_last_event_id() -> None:
    transport, resumed_from = _stream_server()
    with Client("http://api.test", transport=transport, reconnect_delay_s=0) as client:
        seqs = [e.seq for e in client.events("t1", after=2)]
    # the first connection replays 1-2 (skipped) and drops; the reconnect still says 2
    assert seqs == [3] and resumed_from == ["2", "2"]


def test_sync_events_give_up_after_max_reconnects_of_nothing() -> None:
    calls: list[int] = []

    def handle(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        return httpx.Response(200, stream=_Body([], drop=True))

    transport = httpx.MockTransport(handle)
    with (
        Client("http://api.test", transport=transport, reconnect_delay_s=0, max_reconnects=3) as c,
        pytest.raises(httpx.RemoteProtocolError),
    ):
        list(c.events("t1"))
    assert len(calls) == 4


async def test_async_events_resume_after_a_drop_and_errors_are_typed() -> None:
    transport, resumed_from = _stream_server()
    async with AsyncClient("http://api.test", transport=transport, reconnect_delay_s=0) as c:
        seqs = [e.seq async for e in c.events("t1")]
    assert seqs == [1, 2, 3] and resumed_from == [None, "2"]
    async with AsyncClient("http://api.test", transport=httpx.MockTransport(_errors)) as c:
        with pytest.raises(NotFoundError):
            await c.get_task("missing")
