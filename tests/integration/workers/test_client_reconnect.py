"""`webagent run --server` client: a long quiet model call must not exhaust the reconnects.

A proxy (or the old 5 s Redis read) cutting an idle stream used to count every drop against
MAX_RECONNECTS, so the client gave up after ~130 s of a 140 s model call.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from workers.cli.client import MAX_RECONNECTS, TaskClient


class _Body(httpx.SyncByteStream):
    def __init__(self, chunks: list[bytes], drop: bool) -> None:
        self._chunks, self._drop = chunks, drop

    def __iter__(self) -> Iterator[bytes]:
        yield from self._chunks
        if self._drop:
            raise httpx.RemoteProtocolError("peer closed connection")


def _message(seq: int, type_: str) -> bytes:
    data = json.dumps({"seq": seq, "type": type_, "data": {}})
    return f"event: {type_}\nid: {seq}\ndata: {data}\n\n".encode()


def _server(drops: int, first_chunk: bytes) -> tuple[httpx.MockTransport, list[str | None]]:
    """Drops `drops` streams after `first_chunk`, then serves the rest of the task."""
    resumed_from: list[str | None] = []

    def handle(request: httpx.Request) -> httpx.Response:
        resumed_from.append(request.headers.get("Last-Event-ID"))
        if len(resumed_from) == 1:
            return httpx.Response(200, stream=_Body([_message(1, "task.started")], drop=True))
        if len(resumed_from) <= drops + 1:
            return httpx.Response(200, stream=_Body([first_chunk], drop=True))
        body = [_message(2, "step.started"), _message(3, "task.finished")]
        return httpx.Response(200, stream=_Body(body, drop=False))

    return httpx.MockTransport(handle), resumed_from


def test_drops_after_keepalives_do_not_exhaust_reconnects() -> None:
    transport, resumed_from = _server(MAX_RECONNECTS + 5, b": ping\n\n")
    with TaskClient("http://api.test", transport=transport, reconnect_delay_s=0) as client:
        seqs = [e.seq for e in client.events("t1")]
    assert seqs == [1, 2, 3]
    assert len(resumed_from) == MAX_RECONNECTS + 7
    assert set(resumed_from[1:]) == {"1"}  # every reconnect resumed after the last event


def test_streams_that_deliver_nothing_still_give_up() -> None:
    transport, resumed_from = _server(MAX_RECONNECTS + 5, b"")
    with TaskClient("http://api.test", transport=transport, reconnect_delay_s=0) as client:
        events = client.events("t1")
        assert next(events).seq == 1
        with pytest.raises(httpx.RemoteProtocolError):
            list(events)
    assert len(resumed_from) == MAX_RECONNECTS + 1  # the first stream and 20 empty retries
