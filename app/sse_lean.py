"""The lean SSE path: `GET /v1/tasks/{id}/events` served beside the middleware stack.

With 2,000 streams on one process every event costs one send per stream, and the generic
path made each send cross the middleware chain's `send` wrappers (problem details, metrics,
the viewer's cookie, the docs guard, Starlette's error and exception layers) and
sse-starlette's per-send cancel scope: ~270 µs of CPU per stream per event (benchmarks.md).
Here the happy path of a stream (authenticated, allowed, valid resume point, the tenant's
task) is checked with the same functions the route uses, then streamed straight to the
server's `send`: one frame write per batch, a disconnect watcher and keep-alive pings on
one idle task per stream. The fan-out from Redis stays one subscription per process
(`app.events._StreamHub`) and every DB read goes through the `ReplayGate`.

Anything else (a missing or bad key, a lacking scope, a malformed id or Last-Event-ID,
another tenant's task, the viewer's cookie) goes to the app unchanged, which answers with
the usual RFC 9457 problem, so errors, rate limiting and documentation stay in one place.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from urllib.parse import parse_qs

from fastapi import HTTPException
from fastapi.exceptions import RequestValidationError
from sqlalchemy.exc import SQLAlchemyError
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Send
from starlette.types import Scope as AsgiScope

from app import metrics
from app.api.deps import admit, bearer_token
from app.api.events import framed, get_replay_gate
from app.api.inputs import INT32_MAX, TASK_ID_PATTERN, parse_event_id
from app.auth import Scope, parse_scopes
from app.contracts import DEFAULT_TENANT
from app.db import repositories
from app.event_stream import ReplayGate, stream_events
from app.events import EventBus
from app.http_metrics import HTTP_LATENCY, HTTP_REQUESTS
from app.settings import Settings

EVENTS_PATH = re.compile(r"^/v1/tasks/([^/]+)/events$")
ROUTE = "/v1/tasks/{task_id}/events"  # the route template, as app/http_metrics.py labels it
PING = b": ping\r\n\r\n"
HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    (b"cache-control", b"no-cache"),
    (b"connection", b"keep-alive"),
    (b"x-accel-buffering", b"no"),
]


class _Open:
    """A stream that passed every check: where it starts and what feeds it."""

    def __init__(self, task_id: str, after: int, gate: ReplayGate, bus: EventBus) -> None:
        self.task_id, self.after, self.gate, self.bus = task_id, after, gate, bus
        self.counted = False  # in the open-streams gauge (once it tails the bus)

    def live(self) -> None:
        """The replay is sent and the stream tails the bus: it counts as open from now."""
        if not self.counted:
            self.counted = True
            metrics.sse_opened()


def _after(query: bytes) -> int | None:
    """`?after=` as a seq (0 when absent); None when the route would refuse it."""
    values = parse_qs(query.decode("latin-1"), keep_blank_values=True)
    if set(values) - {"after"}:
        return None  # other parameters: the route decides what they mean
    raw = values.get("after")
    if raw is None:
        return 0
    if len(raw) != 1 or not raw[0].isascii() or not raw[0].isdigit():
        return None
    number = int(raw[0]) if len(raw[0]) <= 10 else INT32_MAX + 1
    return number if number <= INT32_MAX else None


async def _tenant(request: Request, settings: Settings) -> str | None:
    """The caller's tenant when it may read tasks; None leaves the answer to the route."""
    if not settings.api_keys_required:
        return DEFAULT_TENANT
    token = bearer_token(request)
    if token is None:
        return None  # no header (perhaps the viewer's cookie): the route handles it
    async with request.app.state.session_factory() as session:
        key = await repositories.find_api_key(session, plaintext=token)
    if key is None:
        return None  # the route counts the failed attempt and answers 401
    try:
        admit(request, None, f"key:{key.id}")
    except HTTPException:
        return None
    scopes = parse_scopes(key.scopes)
    if Scope.admin not in scopes and Scope.tasks_read not in scopes:
        return None
    tenant: str = key.tenant_id
    return tenant


async def _open(scope: AsgiScope, task_id: str) -> _Open | None:
    request = Request(scope)
    settings: Settings = request.app.state.settings
    if not re.fullmatch(TASK_ID_PATTERN, task_id):
        return None
    after = _after(scope.get("query_string", b""))
    if after is None:
        return None
    try:
        start = max(after, parse_event_id(request.headers.get("last-event-id")))
    except RequestValidationError:
        return None
    tenant = await _tenant(request, settings)
    if tenant is None:
        return None
    gate = get_replay_gate(request)
    if not await gate.visible(task_id, tenant):
        return None
    return _Open(task_id, start, gate, request.app.state.bus)


async def _body(stream: _Open, send: Send, poll_s: float) -> None:
    events = stream_events(
        stream.task_id,
        stream.after,
        gate=stream.gate,
        bus=stream.bus,
        poll_s=poll_s,
        on_live=stream.live,
    )
    async with contextlib.aclosing(events):
        async for body in framed(events, stream.task_id):
            await send({"type": "http.response.body", "body": body, "more_body": True})
    await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _watch(receive: Receive, send: Send, ping_s: float) -> None:
    """Until the client goes: a keep-alive comment every `ping_s` of quiet on its side."""
    while True:
        try:
            async with asyncio.timeout(ping_s):
                message = await receive()
        except TimeoutError:
            await send({"type": "http.response.body", "body": PING, "more_body": True})
            continue
        if message["type"] == "http.disconnect":
            return


async def _serve(stream: _Open, receive: Receive, send: Send, settings: Settings) -> None:
    await send({"type": "http.response.start", "status": 200, "headers": HEADERS})
    body = asyncio.ensure_future(_body(stream, send, settings.sse_db_poll_s))
    watch = asyncio.ensure_future(_watch(receive, send, settings.sse_ping_s))
    try:
        await asyncio.wait({body, watch}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for task in (body, watch):
            task.cancel()
        await asyncio.gather(body, watch, return_exceptions=True)
    if body.done() and not body.cancelled() and body.exception() is not None:
        raise body.exception()  # type: ignore[misc]


class LeanSSE:
    """ASGI app in front of the middleware stack: task event streams on the happy path."""

    def __init__(self, inner: ASGIApp) -> None:
        self.inner = inner

    async def __call__(self, scope: AsgiScope, receive: Receive, send: Send) -> None:
        match = None
        if scope["type"] == "http" and scope["method"] == "GET":
            match = EVENTS_PATH.match(scope["path"])
        stream = None
        if match is not None:
            try:
                stream = await _open(scope, match.group(1))
            except (SQLAlchemyError, OSError):
                stream = None  # the route answers a database outage with its 503 problem
        if stream is None:
            await self.inner(scope, receive, send)
            return
        started = time.perf_counter()
        try:
            await _serve(stream, receive, send, scope["app"].state.settings)
        finally:
            if stream.counted:
                metrics.sse_closed()
            HTTP_REQUESTS.labels("GET", ROUTE, "200").inc()
            HTTP_LATENCY.labels("GET", ROUTE).observe(time.perf_counter() - started)
