"""GET /v1/tasks/{id}/events: server-sent events, replayed from the DB, then live.

Resume with the standard `Last-Event-ID` header (the SSE id is the event seq) or `?after=`.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import APIRouter, Header, Query
from sse_starlette import EventSourceResponse, ServerSentEvent

from app import metrics
from app.api.deps import BusDep, SessionFactoryDep, SettingsDep, TenantDep
from app.api.inputs import INT32_MAX, TaskIdPath, parse_event_id
from app.api.tasks import load_task
from app.events import EventBus, stream_events

router = APIRouter(prefix="/v1/tasks", tags=["events"])


def _resume_point(last_event_id: str | None, after: int | None) -> int:
    """The larger of header and query (a reconnecting browser sends the header)."""
    return max(after or 0, parse_event_id(last_event_id))


async def _sse(
    task_id: str, after: int, session_factory: Any, bus: EventBus, poll_s: float
) -> AsyncIterator[ServerSentEvent]:
    metrics.sse_opened()
    try:
        events = stream_events(
            task_id, after, session_factory=session_factory, bus=bus, poll_s=poll_s
        )
        # aclosing: a disconnect while suspended at our own yield must still unsubscribe now
        async with contextlib.aclosing(events):
            async for event in events:
                message = event.model_dump_json()
                yield ServerSentEvent(data=message, event=event.type, id=str(event.seq))
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
    session_factory: SessionFactoryDep,
    bus: BusDep,
    tenant: TenantDep,
    last_event_id: Annotated[str | None, Header()] = None,
    after: Annotated[
        int | None, Query(ge=0, le=INT32_MAX, description="resume after this seq")
    ] = None,
) -> EventSourceResponse:
    """Each message: `event:` type, `id:` seq, `data:` {id, task_id, seq, ts, type, data}."""
    start = _resume_point(last_event_id, after)
    async with session_factory() as session:
        await load_task(session, task_id, tenant)
    return EventSourceResponse(
        _sse(task_id, start, session_factory, bus, settings.sse_db_poll_s),
        ping=settings.sse_ping_s,
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )
