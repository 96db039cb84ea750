"""The live view of a running task and a person's takeover (issue 23 item 2).

`GET /v1/tasks/{id}/live`: server-sent events while the task runs: `frame` (a JPEG of the
page, base64, with the viewport size; private regions black) a few times a second, and
`control` (who has the page). The worker screencasts only while someone watches; frames
are relayed, never stored.

`POST .../live/takeover` pauses the agent before its next step; `POST .../live/input`
(a click, scroll or key at a point of the frame) reaches the page while the agent is paused
or waits for an approval; `POST .../live/handback` resumes the agent, which observes the page
afresh with a Ledger note of what the person did. Same tenant and key checks as the run
page: reading needs tasks:read, acting tasks:write; another tenant's task is a 404.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Any, Literal

from fastapi import APIRouter, HTTPException, status
from pydantic import BaseModel
from sse_starlette import EventSourceResponse, ServerSentEvent

from app.api.approvals import decider
from app.api.deps import (
    BusDep,
    PrincipalDep,
    SessionDep,
    SessionFactoryDep,
    SettingsDep,
    TenantDep,
    WriterDep,
)
from app.api.inputs import MALFORMED_BODY, TaskIdPath
from app.api.tasks import load_task
from app.contracts import TaskStatus
from app.db import repositories
from app.live import (
    LiveFeed,
    LiveInput,
    handback_command,
    input_command,
    live_hub,
    takeover_command,
)

router = APIRouter(prefix="/v1/tasks", tags=["live"])

STATUS_CHECK_S = 5.0  # how often an open live stream looks whether its task has ended
LIVE = (TaskStatus.running, TaskStatus.awaiting_approval)
NOT_LIVE: dict[int | str, dict[str, Any]] = {
    409: {"description": "the task is not running (queued or finished)"}
}


class LiveAccepted(BaseModel):
    task_id: str
    command: Literal["takeover", "handback", "input"]


async def _live_task(session: Any, task_id: str, tenant: str) -> Any:
    task = await load_task(session, task_id, tenant)
    if TaskStatus(task.status) not in LIVE:
        raise HTTPException(
            status.HTTP_409_CONFLICT, detail=f"task {task_id} is {task.status}, not running"
        )
    return task


async def _ended(sessions: Any, task_id: str, tenant: str) -> bool:
    async with sessions() as s:
        task = await repositories.get_task(s, task_id=task_id, tenant_id=tenant)
    return task is None or TaskStatus(task.status).terminal


async def _stream(feed: LiveFeed, ended: Any) -> AsyncGenerator[bytes, None]:
    checked = time.monotonic()
    while True:
        message = await feed.next(timeout=1.0)
        if message is not None:
            kind = str(message.get("type") or "frame")
            yield ServerSentEvent(data=json.dumps(message), event=kind).encode()
        if time.monotonic() - checked >= STATUS_CHECK_S:
            checked = time.monotonic()
            if await ended():
                yield ServerSentEvent(data="{}", event="end").encode()
                return


async def _watch(bus: Any, task_id: str, ended: Any) -> AsyncIterator[bytes]:
    async with live_hub(bus).watch(task_id) as feed:
        stream = _stream(feed, ended)
        async with contextlib.aclosing(stream):
            async for chunk in stream:
                yield chunk


@router.get(
    "/{task_id}/live",
    response_class=EventSourceResponse,
    responses={
        200: {"content": {"text/event-stream": {}}, "description": "SSE stream of live frames"},
        404: {},
        **NOT_LIVE,
    },
)
async def live_view(
    task_id: TaskIdPath,
    session: SessionDep,
    sessions: SessionFactoryDep,
    settings: SettingsDep,
    bus: BusDep,
    tenant: TenantDep,
) -> EventSourceResponse:
    """Messages: `frame` {jpeg (base64), width, height}, `control` {by: agent | person,
    requested}, `end` once the task has finished."""
    await _live_task(session, task_id, tenant)
    await session.close()  # the stream outlives the request's session

    async def ended() -> bool:
        return await asyncio.shield(_ended(sessions, task_id, tenant))

    return EventSourceResponse(
        _watch(bus, task_id, ended),
        ping=settings.sse_ping_s,
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


@router.post(
    "/{task_id}/live/takeover",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=LiveAccepted,
    responses={404: {}, **NOT_LIVE},
)
async def take_over(
    task_id: TaskIdPath, session: SessionDep, bus: BusDep, tenant: WriterDep, who: PrincipalDep
) -> LiveAccepted:
    """Pause the agent before its next step; then the live view takes your input."""
    await _live_task(session, task_id, tenant)
    await live_hub(bus).send(task_id, takeover_command(decider(who)))
    return LiveAccepted(task_id=task_id, command="takeover")


@router.post(
    "/{task_id}/live/handback",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=LiveAccepted,
    responses={404: {}, **NOT_LIVE},
)
async def hand_back(
    task_id: TaskIdPath, session: SessionDep, bus: BusDep, tenant: WriterDep, who: PrincipalDep
) -> LiveAccepted:
    """Resume the agent: it looks at the page afresh, with a note of what you did."""
    await _live_task(session, task_id, tenant)
    await live_hub(bus).send(task_id, handback_command(decider(who)))
    return LiveAccepted(task_id=task_id, command="handback")


@router.post(
    "/{task_id}/live/input",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=LiveAccepted,
    responses={**MALFORMED_BODY, 404: {}, **NOT_LIVE},
)
async def live_input(
    task_id: TaskIdPath, body: LiveInput, session: SessionDep, bus: BusDep, tenant: WriterDep
) -> LiveAccepted:
    """A click, scroll or key on the page, while the agent is paused for you (after Take
    over) or waits for an approval; 409 otherwise."""
    await _live_task(session, task_id, tenant)
    hub = live_hub(bus)
    if await hub.control(task_id) != "person":
        raise HTTPException(
            status.HTTP_409_CONFLICT,
            detail=f"the agent has task {task_id}'s page: take over first (POST .../live/"
            "takeover) and wait for the control message by person",
        )
    await hub.send(task_id, input_command(body))
    return LiveAccepted(task_id=task_id, command="input")
