"""Webhook outbox rows: one per message of a task with a webhook_url.

The `task.finished` row is written with the task (same transaction) and sent once the task
is terminal, so a webhook cannot be lost between "task finished" and "webhook queued",
whoever finishes the task (worker, cancel, reaper). `task.started` and `approval.requested`
rows (when the task chose them in `webhook_events`) are written in the transaction that
starts the task or asks the person (`queue_event`) and are due at once, in event order: a
task's message waits while an earlier one of the same task is pending (a retry included),
and `task.finished` comes after all the others (`_earlier_pending`).
A deliverer claims a due row by pushing its `next_attempt_at` forward (a lease) in one
conditional UPDATE, so two deliverers never send the same attempt. Functions flush but
never commit: the caller owns the transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import and_, exists, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import aliased

from app.contracts import TERMINAL_STATUSES, WebhookEvent
from app.db.models import Task, WebhookDelivery
from app.db.types import utcnow

PENDING, DELIVERED, FAILED = "pending", "delivered", "failed"
_TERMINAL = tuple(s.value for s in TERMINAL_STATUSES)
FINISHED = WebhookEvent.task_finished.value
DEFAULT_EVENTS = (FINISHED,)


def events_of(task: Task) -> tuple[str, ...]:
    """The messages this task's webhook receives (task.finished unless it chose others)."""
    return tuple(task.webhook_events) if task.webhook_events else DEFAULT_EVENTS


async def create_delivery(
    s: AsyncSession,
    *,
    task_id: str,
    tenant_id: str,
    url: str,
    event_type: str = FINISHED,
    data: dict[str, Any] | None = None,
) -> WebhookDelivery:
    row = WebhookDelivery(
        task_id=task_id,
        tenant_id=tenant_id,
        url=url,
        event_type=event_type,
        data=data,
        state=PENDING,
        attempts=0,
        attempts_log=[],
    )
    s.add(row)
    await s.flush()
    return row


async def queue_event(
    s: AsyncSession, *, task_id: str, event: WebhookEvent, data: dict[str, Any] | None = None
) -> WebhookDelivery | None:
    """The outbox row of a non-final message, when the task's webhook chose this event."""
    task = await s.get(Task, task_id)
    if task is None or not task.webhook_url or event.value not in events_of(task):
        return None
    return await create_delivery(
        s,
        task_id=task_id,
        tenant_id=task.tenant_id,
        url=task.webhook_url,
        event_type=event.value,
        data=data,
    )


async def get_delivery(s: AsyncSession, *, task_id: str) -> WebhookDelivery | None:
    """The task.finished message of a task (the one GET /v1/tasks shows and retry resends)."""
    stmt = (
        select(WebhookDelivery)
        .where(WebhookDelivery.task_id == task_id, WebhookDelivery.event_type == FINISHED)
        .execution_options(populate_existing=True)
    )
    return (await s.execute(stmt)).scalars().first()


async def deliveries_for(s: AsyncSession, *, task_ids: Sequence[str]) -> dict[str, WebhookDelivery]:
    """Task id -> its task.finished delivery row, for the tasks that have one."""
    if not task_ids:
        return {}
    stmt = select(WebhookDelivery).where(
        WebhookDelivery.task_id.in_(list(task_ids)), WebhookDelivery.event_type == FINISHED
    )
    return {row.task_id: row for row in (await s.execute(stmt)).scalars()}


def _earlier_pending() -> Any:
    """An earlier message of the same task is still pending: the messages other than
    task.finished in the order they were queued, task.finished after all of them."""
    this, other = WebhookDelivery, aliased(WebhookDelivery)
    queued_before = or_(
        other.created_at < this.created_at,
        and_(other.created_at == this.created_at, other.id < this.id),
    )
    before = or_(this.event_type == FINISHED, queued_before)
    return exists().where(
        other.task_id == this.task_id,
        other.id != this.id,
        other.state == PENDING,
        other.event_type != FINISHED,
        before,
    )


async def claim_due(
    s: AsyncSession,
    *,
    lease_s: float,
    limit: int = 20,
    task_id: str | None = None,
    now: datetime | None = None,
) -> list[str]:
    """Ids of pending deliveries that are due (task.finished: of terminal tasks), oldest
    first, leased for `lease_s`."""
    now = now or utcnow()
    due = or_(WebhookDelivery.next_attempt_at.is_(None), WebhookDelivery.next_attempt_at <= now)
    ready = or_(WebhookDelivery.event_type != FINISHED, Task.status.in_(_TERMINAL))
    stmt = (
        select(WebhookDelivery.id)
        .join(Task, Task.id == WebhookDelivery.task_id)
        .where(WebhookDelivery.state == PENDING, due, ready, ~_earlier_pending())
        .order_by(WebhookDelivery.next_attempt_at, WebhookDelivery.created_at)
        .limit(limit)
    )
    if task_id is not None:
        stmt = stmt.where(WebhookDelivery.task_id == task_id)
    claimed = []
    for delivery_id in list((await s.execute(stmt)).scalars()):
        lease = (
            update(WebhookDelivery)
            .where(WebhookDelivery.id == delivery_id, WebhookDelivery.state == PENDING, due)
            .values(next_attempt_at=now + timedelta(seconds=lease_s), updated_at=now)
            .returning(WebhookDelivery.id)
            .execution_options(synchronize_session=False)
        )
        if (await s.execute(lease)).scalar_one_or_none() is not None:
            claimed.append(delivery_id)
    return claimed


async def record_attempt(
    s: AsyncSession,
    *,
    delivery_id: str,
    attempt: dict[str, Any],
    delivered: bool,
    next_attempt_at: datetime | None,
) -> WebhookDelivery | None:
    """Append one attempt; delivered, retried at `next_attempt_at`, or failed (None)."""
    row = await s.get(WebhookDelivery, delivery_id, populate_existing=True)
    if row is None:
        return None
    now = utcnow()
    row.attempts = (row.attempts or 0) + 1
    row.attempts_log = [*(row.attempts_log or []), attempt]
    if delivered:
        row.state, row.delivered_at, row.next_attempt_at = DELIVERED, now, None
    elif next_attempt_at is None:
        row.state, row.next_attempt_at = FAILED, None
    else:
        row.next_attempt_at = next_attempt_at
    row.updated_at = now
    await s.flush()
    return row


async def reset_delivery(s: AsyncSession, *, task_id: str) -> WebhookDelivery | None:
    """Send again now (POST .../webhook/retry): pending, due, a fresh series of attempts
    (`attempts` counts the current series; the log keeps every attempt ever made)."""
    row = await get_delivery(s, task_id=task_id)
    if row is None:
        return None
    row.state, row.next_attempt_at, row.attempts = PENDING, None, 0
    row.updated_at = utcnow()
    await s.flush()
    return row
