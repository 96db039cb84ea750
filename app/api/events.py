"""GET /v1/tasks/{id}/events: server-sent events, replayed from the DB, then live.

Resume with the standard `Last-Event-ID` header (the SSE id is the event seq) or `?after=`.
When the event store fails mid-stream (a Postgres outage), the stream ends with a last
`stream.interrupted` message saying why and a `retry:` hint, never cut mid-chunk (issue 32
item 6); the client reconnects with `Last-Event-ID` and loses nothing.
"""

from __future__ import annotations

import contextlib
import json
import logging
from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Depends, Header, HTTPException, Query, Request, status
from sqlalchemy.exc import SQLAlchemyError
from sse_starlette import EventSourceResponse, ServerSentEvent

from app import metrics
from app.api.deps import BusDep, SettingsDep, TenantDep
from app.api.inputs import INT32_MAX, TaskIdPath, parse_event_id
from app.contracts import Event
from app.event_stream import ReplayGate, stream_events
from app.events import EventBus

router = APIRouter(prefix="/v1/tasks", tags=["events"])
log = logging.getLogger(__name__)

FRAME_CACHE_SIZE = 4096
_frames: dict[str, bytes] = {}


def frame(event: Event) -> bytes:
    """The event's SSE message, encoded once for every stream that sends it (by event id)."""
    data = _frames.get(event.id)
    if data is None:
        if len(_frames) >= FRAME_CACHE_SIZE:
            _frames.clear()
        message = ServerSentEvent(data=event.model_dump_json(), event=event.type, id=str(event.seq))
        data = _frames[event.id] = message.encode()
    return data


STREAM_INTERRUPTED = "stream.interrupted"
RETRY_MS = 5000


def interrupted_frame(reason: str) -> bytes:
    """The last message of a stream whose event store failed: why, and how to go on."""
    data = {"reason": reason, "resume": "reconnect with Last-Event-ID; no event is lost"}
    return ServerSentEvent(data=json.dumps(data), event=STREAM_INTERRUPTED, retry=RETRY_MS).encode()


async def framed(batches: AsyncIterator[list[Event]], task_id: str) -> AsyncIterator[bytes]:
    """The SSE bytes of the event batches; a database or network failure ends them with
    interrupted_frame() instead of an exception that cuts the response mid-chunk."""
    try:
        async for batch in batches:
            yield b"".join(frame(event) for event in batch)
    except (SQLAlchemyError, OSError) as exc:
        log.warning("event stream of %s interrupted: %s", task_id, type(exc).__name__)
        yield interrupted_frame("the event store is unavailable")


def get_replay_gate(request: Request) -> ReplayGate:
    """The app's one gate on SSE database reads (made on first use, on the serving loop)."""
    state = request.app.state
    gate: ReplayGate | None = getattr(state, "sse_replay_gate", None)
    if gate is None or gate.session_factory is not state.session_factory:
        gate = ReplayGate(state.session_factory, state.settings.sse_db_concurrency)
        state.sse_replay_gate = gate
    return gate


ReplayGateDep = Annotated[ReplayGate, Depends(get_replay_gate)]


def _resume_point(last_event_id: str | None, after: int | None) -> int:
    """The larger of header and query (a reconnecting browser sends the header)."""
    return max(after or 0, parse_event_id(last_event_id))


async def _sse(
    task_id: str, after: int, gate: ReplayGate, bus: EventBus, poll_s: float
) -> AsyncIterator[bytes]:
    metrics.sse_opened()
    try:
        events = stream_events(task_id, after, gate=gate, bus=bus, poll_s=poll_s)
        # aclosing: a disconnect while suspended at our own yield must still unsubscribe now
        async with contextlib.aclosing(events):
            async for chunk in framed(events, task_id):
                yield chunk
    finally:
        metrics.sse_closed()


@router.get(
    "/{task_id}/events",
    response_class=EventSourceResponse,
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "SSE stream of task events"},
        404: {},
    },
)
async def task_events(
    task_id: TaskIdPath,
    settings: SettingsDep,
    gate: ReplayGateDep,
    bus: BusDep,
    tenant: TenantDep,
    last_event_id: Annotated[str | None, Header()] = None,
    after: Annotated[
        int | None, Query(ge=0, le=INT32_MAX, description="resume after this seq")
    ] = None,
) -> EventSourceResponse:
    """Each message: `event:` type, `id:` seq, `data:` {id, task_id, seq, ts, type, data}."""
    start = _resume_point(last_event_id, after)
    if not await gate.visible(task_id, tenant):
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"task {task_id} not found")
    return EventSourceResponse(
        _sse(task_id, start, gate, bus, settings.sse_db_poll_s),
        ping=settings.sse_ping_s,
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
