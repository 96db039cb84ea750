"""Task rows: idempotent creation, keyset listing and guarded status transitions.

Functions flush but never commit: the caller owns the transaction. Status changes
are single conditional UPDATEs so concurrent workers, reapers and cancels cannot
overwrite each other (the WHERE clause is the lock).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import ColumnElement, and_, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.contracts import (
    TERMINAL_STATUSES,
    ErrorCode,
    TaskProfile,
    TaskSpec,
    TaskStatus,
    WebhookEvent,
)
from app.db import leases, repo_webhooks
from app.db.cursor import decode_cursor, encode_cursor
from app.db.dialect import dialect_insert
from app.db.errors import IdempotencyConflict
from app.db.models import Task, new_id
from app.db.types import utcnow

LIVE_STATUSES = (TaskStatus.running.value, TaskStatus.awaiting_approval.value)
_TERMINAL = tuple(s.value for s in TERMINAL_STATUSES)


def domain_of(url: str | None) -> str | None:
    """Lower-cased host of a URL (what `list_tasks(domain=...)` filters on)."""
    if not url:
        return None
    host = urlsplit(url).hostname
    return host.rstrip(".").lower() if host else None


def _check_idempotent(task: Task, request_hash: str | None) -> Task:
    if task.request_hash != request_hash:
        raise IdempotencyConflict(
            tenant_id=task.tenant_id,
            idempotency_key=task.idempotency_key or "",
            existing_task_id=task.id,
        )
    return task


async def _by_idempotency_key(s: AsyncSession, tenant_id: str, key: str) -> Task | None:
    stmt = select(Task).where(Task.tenant_id == tenant_id, Task.idempotency_key == key)
    return (await s.execute(stmt)).scalar_one_or_none()


async def create_task(
    s: AsyncSession,
    *,
    tenant_id: str,
    instruction: str,
    start_url: str | None,
    max_steps: int,
    timeout_s: float,
    allowed_domains: Sequence[str],
    task_policy: dict[str, Any] | None = None,
    metadata: dict[str, Any],
    idempotency_key: str | None = None,
    request_hash: str | None = None,
    secret_names: Sequence[str] = (),
    secrets_sealed: str | None = None,
    approval_policy: str = "sensitive",
    extra: dict[str, Any] | None = None,
) -> tuple[Task, bool]:
    """Insert a queued task → (task, created). A reused key returns the original task.

    Race-safe without savepoints: INSERT … ON CONFLICT DO NOTHING, then re-read the
    winner. A reused key with a different `request_hash` raises IdempotencyConflict.
    """
    if idempotency_key is not None:
        existing = await _by_idempotency_key(s, tenant_id, idempotency_key)
        if existing is not None:
            return _check_idempotent(existing, request_hash), False
    now = utcnow()
    table = Task.__table__
    values = {
        "id": new_id(),
        "tenant_id": tenant_id,
        "status": TaskStatus.queued.value,
        "instruction": instruction,
        "start_url": start_url,
        "domain": domain_of(start_url),
        "max_steps": max_steps,
        "timeout_s": float(timeout_s),
        "allowed_domains": list(allowed_domains),
        **(task_policy or {}),  # task_profile, forbid_login, private_regions (migration 0007)
        "metadata": dict(metadata),
        "idempotency_key": idempotency_key,
        "request_hash": request_hash,
        "secret_names": list(secret_names),
        "secrets_sealed": secrets_sealed,
        "approval_policy": approval_policy,
        **(extra or {}),  # further Task columns by name (output_schema, webhook_url, ...)
        "created_at": now,
        "queued_at": now,
        "updated_at": now,
    }
    stmt = dialect_insert(s, table).values(values)  # type: ignore[arg-type]
    if idempotency_key is not None:
        stmt = stmt.on_conflict_do_nothing(index_elements=["tenant_id", "idempotency_key"])
    inserted = (await s.execute(stmt.returning(table.c.id))).scalar_one_or_none()
    if inserted is None:
        assert idempotency_key is not None  # only the idempotency constraint is skipped
        winner = await _by_idempotency_key(s, tenant_id, idempotency_key)
        if winner is None:  # the winner rolled back; its key is free again
            return await create_task(
                s,
                tenant_id=tenant_id,
                instruction=instruction,
                start_url=start_url,
                max_steps=max_steps,
                timeout_s=timeout_s,
                allowed_domains=allowed_domains,
                task_policy=task_policy,
                metadata=metadata,
                idempotency_key=idempotency_key,
                request_hash=request_hash,
                secret_names=secret_names,
                secrets_sealed=secrets_sealed,
                approval_policy=approval_policy,
                extra=extra,
            )
        return _check_idempotent(winner, request_hash), False
    task = await s.get(Task, inserted)
    assert task is not None
    return task, True


async def get_task(s: AsyncSession, *, task_id: str, tenant_id: str | None = None) -> Task | None:
    """A task by id; with `tenant_id`, tasks of other tenants read as missing."""
    stmt = select(Task).where(Task.id == task_id).execution_options(populate_existing=True)
    if tenant_id is not None:
        stmt = stmt.where(Task.tenant_id == tenant_id)
    return (await s.execute(stmt)).scalar_one_or_none()


async def list_tasks(
    s: AsyncSession,
    *,
    tenant_id: str,
    status: TaskStatus | str | Iterable[TaskStatus | str] | None = None,
    domain: str | None = None,
    since: datetime | None = None,
    cursor: str | None = None,
    limit: int = 50,
    text: str | None = None,
) -> tuple[list[Task], str | None]:
    """Newest first, keyset-paginated on (created_at, id) → (page, next_cursor or None);
    `text`: only tasks whose instruction, start URL or answer contain it (any case).

    Raises InvalidCursor for a cursor this service did not issue.
    """
    limit = max(1, min(int(limit), 1000))
    stmt = select(Task).where(Task.tenant_id == tenant_id)
    if status is not None:
        wanted = [status] if isinstance(status, str) else list(status)
        stmt = stmt.where(Task.status.in_([str(x) for x in wanted]))
    if domain:
        stmt = stmt.where(Task.domain == domain.rstrip(".").lower())
    if since is not None:
        stmt = stmt.where(Task.created_at >= since)
    if text:
        stmt = stmt.where(text_matches(text))
    return await newest_first(s, stmt, cursor, limit)


MAX_QUERY_CHARS = 200


def text_matches(text: str) -> ColumnElement[bool]:
    """The task's instruction, start URL or answer contains `text`, case-insensitively
    (the API's `?q=` and the viewer's search)."""
    needle = text.lower()[:MAX_QUERY_CHARS]
    return or_(
        func.lower(Task.instruction).contains(needle, autoescape=True),
        func.lower(func.coalesce(Task.start_url, "")).contains(needle, autoescape=True),
        func.lower(func.coalesce(Task.answer, "")).contains(needle, autoescape=True),
    )


async def newest_first(
    s: AsyncSession, stmt: Any, cursor: str | None, limit: int
) -> tuple[list[Task], str | None]:
    """One keyset page of a `select(Task)` on (created_at, id), newest first
    → (page, next_cursor or None). Raises InvalidCursor for a cursor this service did not
    issue. The API's task list and the viewer's run list (app/web/queries.py) share it."""
    if cursor:
        at, after_id = decode_cursor(cursor)
        stmt = stmt.where(
            or_(Task.created_at < at, and_(Task.created_at == at, Task.id < after_id))
        )
    stmt = stmt.order_by(Task.created_at.desc(), Task.id.desc()).limit(limit + 1)
    rows = list((await s.execute(stmt)).scalars())
    if len(rows) <= limit:
        return rows, None
    page = rows[:limit]
    return page, encode_cursor(page[-1].created_at, page[-1].id)


async def _update_returning_ids(s: AsyncSession, stmt: Any) -> list[str]:
    return await leases.changed_ids(s, Task, stmt)


async def mark_running(s: AsyncSession, *, task_id: str, worker_id: str) -> Task | None:
    """Claim a queued, uncancelled task for a worker; None if someone else got it first.
    A webhook that chose `task.started` gets its message queued in the same transaction."""
    uncancelled = (Task.cancel_requested.is_(False),)
    if not await leases.claim(s, Task, row_id=task_id, worker_id=worker_id, where=uncancelled):
        return None
    task = await get_task(s, task_id=task_id)
    if task is not None:
        await repo_webhooks.queue_event(s, task_id=task_id, event=WebhookEvent.task_started)
    return task


async def heartbeat(s: AsyncSession, *, task_id: str, worker_id: str) -> bool:
    """Refresh liveness; False once the task is no longer live or owned by this worker."""
    return await leases.beat(s, Task, row_id=task_id, worker_id=worker_id, live=LIVE_STATUSES)


async def set_awaiting_approval(s: AsyncSession, *, task_id: str, awaiting: bool) -> bool:
    """running ⇄ awaiting_approval; False if the task is in neither expected state."""
    src, dst = (TaskStatus.running, TaskStatus.awaiting_approval)
    if not awaiting:
        src, dst = dst, src
    stmt = (
        update(Task)
        .where(Task.id == task_id, Task.status == src.value)
        .values(status=dst.value, updated_at=utcnow())
    )
    return bool(await _update_returning_ids(s, stmt))


async def update_usage(
    s: AsyncSession,
    *,
    task_id: str,
    steps: int,
    llm_calls: int,
    input_tokens: int,
    output_tokens: int,
) -> None:
    """Store the run's usage *totals so far* (absolute values, not increments)."""
    stmt = (
        update(Task)
        .where(Task.id == task_id)
        .values(
            steps=steps,
            llm_calls=llm_calls,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            updated_at=utcnow(),
        )
        .execution_options(synchronize_session=False)
    )
    await s.execute(stmt)


async def finish_task(
    s: AsyncSession,
    *,
    task_id: str,
    status: TaskStatus | str,
    answer: str | None = None,
    success: bool | None = None,
    error: ErrorCode | str | None = None,
    error_detail: str | None = None,
    result_data: Any = None,
    result_grounding: Any = None,
) -> bool:
    """Move a task to a terminal status once; False if it was already terminal."""
    final = TaskStatus(status)
    if not final.terminal:
        raise ValueError(f"finish_task needs a terminal status, got {final.value!r}")
    now = utcnow()
    stmt = (
        update(Task)
        .where(Task.id == task_id, Task.status.not_in(_TERMINAL))
        .values(
            status=final.value,
            answer=answer,
            success=success,
            error=None if error is None else str(error),
            error_detail=error_detail,
            result_data=result_data,
            result_grounding=result_grounding,
            finished_at=now,
            updated_at=now,
        )
    )
    return bool(await _update_returning_ids(s, stmt))


async def request_cancel(s: AsyncSession, *, task_id: str, tenant_id: str) -> Task | None:
    """Flag a cancel; a still-queued task is cancelled at once. None if no such task.

    Terminal tasks are returned unchanged. A running task keeps running until its
    worker sees `is_cancel_requested` and finishes it as cancelled.
    """
    now = utcnow()
    flag = (
        update(Task)
        .where(Task.id == task_id, Task.tenant_id == tenant_id, Task.status.not_in(_TERMINAL))
        .values(cancel_requested=True, updated_at=now)
    )
    if await _update_returning_ids(s, flag):
        cancel_queued = (
            update(Task)
            .where(Task.id == task_id, Task.status == TaskStatus.queued.value)
            .values(status=TaskStatus.cancelled.value, finished_at=now, updated_at=now)
        )
        await _update_returning_ids(s, cancel_queued)
    return await get_task(s, task_id=task_id, tenant_id=tenant_id)


async def is_cancel_requested(s: AsyncSession, *, task_id: str) -> bool:
    """True when a cancel was requested — or the row is gone, so there is nothing to run."""
    stmt = select(Task.cancel_requested).where(Task.id == task_id)
    flag = (await s.execute(stmt)).scalar_one_or_none()
    return True if flag is None else bool(flag)


async def reap_lost_tasks(s: AsyncSession, *, stale_before: datetime) -> list[str]:
    """Fail live tasks whose worker stopped heartbeating; never requeues (no double runs)."""
    return await leases.reap(
        s, Task, live=LIVE_STATUSES, stale_before=stale_before, values={"success": False}
    )


async def count_by_status(s: AsyncSession, *, tenant_id: str | None = None) -> dict[str, int]:
    """Task counts for every TaskStatus (zeros included), e.g. for metrics gauges."""
    stmt = select(Task.status, func.count()).group_by(Task.status)
    if tenant_id is not None:
        stmt = stmt.where(Task.tenant_id == tenant_id)
    counts = {status.value: 0 for status in TaskStatus}
    for status, n in (await s.execute(stmt)).all():
        counts[status] = int(n)
    return counts


def task_to_spec(task: Task) -> TaskSpec:
    """What a worker needs to run the task, as the shared contract model."""
    return TaskSpec(
        task_id=task.id,
        tenant_id=task.tenant_id,
        instruction=task.instruction,
        start_url=task.start_url,
        max_steps=task.max_steps,
        timeout_s=task.timeout_s,
        allowed_domains=tuple(task.allowed_domains or ()),
        task_profile=TaskProfile(task.task_profile or TaskProfile.general),
        forbid_login=bool(task.forbid_login),
        private_regions=tuple(task.private_regions or ()),
        reuse_routes=task.reuse_routes is not False,
        record_trace=bool(task.record_trace),
        time_zone=task.time_zone or "UTC",
        approval_timeout_s=task.approval_timeout_s,
        metadata=dict(task.meta or {}),
        secret_names=tuple(task.secret_names or ()),
        secrets_sealed=task.secrets_sealed,
        allow_scripts=bool(task.allow_scripts),
        attachments=tuple(task.attachment_names or ()),
        output_schema=task.output_schema,
        profile=task.profile,
        save_profile=bool(task.save_profile),
        max_tokens=task.max_tokens,
        max_cost_usd=task.max_cost_usd,
        approval_policy=task.approval_policy or "sensitive",
    )
