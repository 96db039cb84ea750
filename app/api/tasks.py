"""Task routes: submit (insert, commit, enqueue), read, list, cancel, steps, screenshots."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Annotated, Any

from fastapi import APIRouter, Header, HTTPException, Path, Query, Response, status
from redis.exceptions import RedisError

from app import metrics
from app.api import attachments, results
from app.api.admission import admit
from app.api.blobs import artifact_response
from app.api.deps import (
    BusDep,
    DispatcherDep,
    PrincipalDep,
    SessionDep,
    SettingsDep,
    StoreDep,
    TenantDep,
    WriterDep,
)
from app.api.inputs import (
    INT32_MAX,
    MALFORMED_BODY,
    IsoDatetime,
    SafeStr,
    TaskIdPath,
    invalid,
)
from app.api.schemas import StepList, TaskCreate, TaskOut, TaskPage, task_out
from app.api.steps import build_steps
from app.api.unavailable import DependencyUnavailable
from app.contracts import ErrorCode, Event, EventType, TaskStatus, Usage
from app.db import repositories
from app.db.errors import IdempotencyConflict, InvalidCursor
from app.db.repo_keys import count_active_tasks
from app.dispatch import DispatchError
from app.events import EventBus, event_from_row

log = logging.getLogger(__name__)
router = APIRouter(prefix="/v1/tasks", tags=["tasks"])

SCREENSHOT = "screenshot"
ACTIVE_CAP_RETRY_S = 5


async def _check_active_cap(session: Any, tenant: str, cap: int) -> None:
    """429 while the tenant already has `cap` queued or running tasks (0: no cap)."""
    if cap and await count_active_tasks(session, tenant_id=tenant) >= cap:
        raise HTTPException(
            status.HTTP_429_TOO_MANY_REQUESTS,
            detail=f"{cap} tasks are already queued or running for this client",
            headers={"Retry-After": str(ACTIVE_CAP_RETRY_S)},
        )


async def _fail_unqueued(session: Any, task_id: str, reason: str) -> None:
    """A row no queue knows about would stay queued forever: fail it visibly instead."""
    log.error("enqueue failed for task %s: %s", task_id, reason)
    await repositories.finish_task(
        session,
        task_id=task_id,
        status=TaskStatus.failed,
        success=False,
        error=ErrorCode.internal,
        error_detail=f"could not enqueue: {reason}",
    )
    await session.commit()
    metrics.task_finished(TaskStatus.failed.value, None)


@router.post(
    "",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=TaskOut,
    responses={
        **MALFORMED_BODY,
        409: {"description": "Idempotency-Key reused with a different body"},
    },
)
async def submit_task(
    body: TaskCreate,
    response: Response,
    session: SessionDep,
    settings: SettingsDep,
    dispatcher: DispatcherDep,
    tenant: WriterDep,
    principal: PrincipalDep,
    store: StoreDep,
    idempotency_key: Annotated[SafeStr | None, Header(max_length=255)] = None,
) -> TaskOut:
    """Check the body (each refusal a 422 naming its field), persist the task, then enqueue
    it: a worker can only ever see committed rows."""
    # every check of the body, in order, and the row to store: app/api/admission.py
    admitted = await admit(body, tenant, settings=settings, session=session)
    if principal.key_id is not None:  # keyed clients; keys off is the operator's own loopback
        await _check_active_cap(session, tenant, settings.max_active_tasks_per_tenant)
    try:
        task, created = await repositories.create_task(
            session, **admitted.row, idempotency_key=idempotency_key
        )
        if created:
            await attachments.store(
                session, store, task, list(admitted.files), allow_scripts=admitted.allow_scripts
            )
            await results.queue_webhook(session, task)
        await session.commit()
    except IdempotencyConflict as exc:
        await session.rollback()
        raise HTTPException(status.HTTP_409_CONFLICT, detail=str(exc)) from exc
    if created:
        try:
            await dispatcher.enqueue(task.id, timeout_s=task.timeout_s)
        except DispatchError as exc:
            await _fail_unqueued(session, task.id, str(exc))
            raise DependencyUnavailable(
                "queue", f"queue unavailable; task {task.id} was marked failed, submit again"
            ) from exc
        metrics.task_submitted()
    response.headers["Location"] = f"/v1/tasks/{task.id}"
    return (await results.task_outs(session, [task], settings.llm_prices))[0]


@router.get("", response_model=TaskPage)
async def list_tasks(
    session: SessionDep,
    tenant: TenantDep,
    settings: SettingsDep,
    status_: Annotated[TaskStatus | None, Query(alias="status")] = None,
    domain: Annotated[SafeStr | None, Query(max_length=255)] = None,
    since: Annotated[IsoDatetime | None, Query()] = None,
    cursor: Annotated[SafeStr | None, Query(max_length=512)] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    q: Annotated[
        SafeStr | None,
        Query(
            max_length=200,
            description="text in the instruction, start URL or answer (case-insensitive)",
        ),
    ] = None,
) -> TaskPage:
    """Newest first; pass `next_cursor` back as `cursor` for the next page."""
    try:
        rows, next_cursor = await repositories.list_tasks(
            session,
            tenant_id=tenant,
            status=status_.value if status_ else None,
            domain=domain.lower() if domain else None,
            since=since,
            cursor=cursor,
            limit=limit,
            text=q.strip() if q else None,
        )
    except InvalidCursor as exc:
        invalid(("query", "cursor"), str(exc), cursor)
    return TaskPage(
        items=await results.task_outs(session, rows, settings.llm_prices),
        next_cursor=next_cursor,
    )


async def load_task(session: Any, task_id: str, tenant: str) -> Any:
    """The tenant's task or 404 (another tenant's task is indistinguishable from none)."""
    task = await repositories.get_task(session, task_id=task_id, tenant_id=tenant)
    if task is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"task {task_id} not found")
    return task


@router.get("/{task_id}", response_model=TaskOut, responses={404: {}})
async def get_task(
    task_id: TaskIdPath, session: SessionDep, tenant: TenantDep, settings: SettingsDep
) -> TaskOut:
    task = await load_task(session, task_id, tenant)
    return (await results.task_outs(session, [task], settings.llm_prices))[0]


async def _record_queued_cancel(session: Any, task_id: str) -> Event:
    """The task.finished row of a task cancelled before any worker ran it (same shape as the
    worker's), so its event stream ends like every other terminal task's."""
    data: dict[str, Any] = {
        "status": TaskStatus.cancelled.value,
        "answer": None,
        "success": False,
        "error": None,
        "error_detail": None,
        "usage": Usage().model_dump(),
    }
    seq = await repositories.next_event_seq(session, task_id=task_id)
    row = await repositories.append_event(
        session, task_id=task_id, seq=seq, type=EventType.task_finished.value, data=data
    )
    return event_from_row(row)


@router.post(
    "/{task_id}/cancel",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=TaskOut,
    responses={404: {}, 409: {"description": "task already finished"}},
)
async def cancel_task(
    task_id: TaskIdPath, session: SessionDep, tenant: WriterDep, bus: BusDep
) -> TaskOut:
    """Queued tasks are cancelled at once; running ones are flagged and the worker stops."""
    task = await load_task(session, task_id, tenant)
    if TaskStatus(task.status).terminal:
        raise HTTPException(status.HTTP_409_CONFLICT, detail=f"task is already {task.status}")
    was_queued = task.status == TaskStatus.queued
    task = await repositories.request_cancel(session, task_id=task_id, tenant_id=tenant)
    if task is None:
        await session.rollback()
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"task {task_id} not found")
    finished: Event | None = None
    if task.status == TaskStatus.cancelled and was_queued:
        # no worker will ever run it, so nobody else records its end: do it in this transaction
        finished = await _record_queued_cancel(session, task_id)
    await session.commit()
    if finished is not None:
        metrics.task_finished(TaskStatus.cancelled.value, None)
        await _publish(bus, finished)
    elif TaskStatus(task.status).terminal and task.status != TaskStatus.cancelled:
        raise HTTPException(status.HTTP_409_CONFLICT, detail=f"task is already {task.status}")
    return task_out(task)


async def _publish(bus: EventBus, event: Event) -> None:
    """Live viewers get it now; a failed publish only delays them (SSE re-reads the DB)."""
    try:
        await bus.publish(event)
    except (RedisError, OSError) as exc:
        log.warning("live publish of %s seq %d failed: %s", event.task_id, event.seq, exc)


@router.get("/{task_id}/steps", response_model=StepList, responses={404: {}})
async def list_steps(task_id: TaskIdPath, session: SessionDep, tenant: TenantDep) -> StepList:
    await load_task(session, task_id, tenant)
    events: list[Any] = []
    after = 0
    while True:
        page: Sequence[Any] = await repositories.list_events(
            session, task_id=task_id, after_seq=after, limit=1000
        )
        events.extend(page)
        if len(page) < 1000:
            break
        after = page[-1].seq
    artifacts = await repositories.list_artifacts(session, task_id=task_id, kind=SCREENSHOT)
    shots = {a.step for a in artifacts}
    return StepList(task_id=task_id, steps=build_steps(task_id, events, shots))


@router.get(
    "/{task_id}/screenshots/{step}",
    response_class=Response,
    responses={200: {"content": {"image/jpeg": {}}}, 307: {}, 404: {}},
)
async def get_screenshot(
    task_id: TaskIdPath,
    step: Annotated[int, Path(ge=0, le=INT32_MAX)],
    session: SessionDep,
    tenant: TenantDep,
    store: StoreDep,
    settings: SettingsDep,
) -> Response:
    await load_task(session, task_id, tenant)
    artifact = await repositories.get_artifact(session, task_id=task_id, kind=SCREENSHOT, step=step)
    if artifact is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"no screenshot for step {step}")
    return await artifact_response(
        session,
        store,
        artifact,
        presign_s=settings.artifact_presign_s,
        headers={"Cache-Control": "private, max-age=86400"},
        default_type="image/jpeg",
    )
