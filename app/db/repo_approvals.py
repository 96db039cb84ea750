"""Approval rows: a paused task's request for a person, and the one decision it gets.

Functions flush but never commit: the caller owns the transaction. A decision is a single
conditional UPDATE on a pending row (the WHERE clause is the lock), so a person approving
and the worker expiring the same request at the same moment cannot both win.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.contracts import ApprovalStatus, WebhookEvent
from app.db import repo_webhooks
from app.db.models import Approval, new_id
from app.db.types import as_utc, utcnow


async def create_approval(
    s: AsyncSession,
    *,
    task_id: str,
    tenant_id: str,
    kind: str,
    reason: str,
    details: Mapping[str, Any],
    expires_at: datetime,
) -> Approval:
    """Insert a pending request (and the `approval.requested` webhook message, when the
    task's webhook chose it)."""
    row = Approval(
        id=new_id(),
        task_id=task_id,
        tenant_id=tenant_id,
        kind=kind,
        status=ApprovalStatus.pending.value,
        reason=reason,
        details=dict(details),
        created_at=utcnow(),
        expires_at=expires_at,
    )
    s.add(row)
    await s.flush()
    await repo_webhooks.queue_event(
        s, task_id=task_id, event=WebhookEvent.approval_requested, data=approval_message(row)
    )
    return row


def approval_message(row: Approval) -> dict[str, Any]:
    """What the approval.requested message says: the request, in the API's own words."""
    return {
        "id": row.id,
        "kind": row.kind,
        "reason": row.reason,
        "url": (row.details or {}).get("url"),
        "created_at": as_utc(row.created_at).isoformat(),
        "expires_at": as_utc(row.expires_at).isoformat(),
    }


async def get_approval(
    s: AsyncSession, *, approval_id: str, task_id: str | None = None
) -> Approval | None:
    """An approval by id (of that task, when given); always re-read from the database."""
    stmt = (
        select(Approval).where(Approval.id == approval_id).execution_options(populate_existing=True)
    )
    if task_id is not None:
        stmt = stmt.where(Approval.task_id == task_id)
    return (await s.execute(stmt)).scalar_one_or_none()


async def list_approvals(s: AsyncSession, *, task_id: str) -> list[Approval]:
    """A task's approvals, oldest first."""
    stmt = (
        select(Approval)
        .where(Approval.task_id == task_id)
        .order_by(Approval.created_at, Approval.id)
        .execution_options(populate_existing=True)
    )
    return list((await s.execute(stmt)).scalars())


async def decide_approval(
    s: AsyncSession,
    *,
    approval_id: str,
    status: ApprovalStatus | str,
    decided_by: str,
    now: datetime | None = None,
) -> bool:
    """pending -> status, once; False when it was already decided (or has expired).

    A person's approval (or denial) after `expires_at` does not count: the worker has
    already given up waiting, so it must not look as if the action had been allowed.
    """
    final = ApprovalStatus(status)
    if final is ApprovalStatus.pending:
        raise ValueError("a decision must not be pending")
    at = now or utcnow()
    stmt = update(Approval).where(
        Approval.id == approval_id, Approval.status == ApprovalStatus.pending.value
    )
    if final is not ApprovalStatus.expired:
        stmt = stmt.where(Approval.expires_at > at)
    stmt = (
        stmt.values(status=final.value, decided_at=at, decided_by=decided_by)
        .returning(Approval.id)
        .execution_options(synchronize_session=False)
    )
    return (await s.execute(stmt)).scalar_one_or_none() is not None


def is_overdue(row: Approval, now: datetime | None = None) -> bool:
    """A pending request past its expiry: it reads as expired even before the worker says so."""
    return row.status == ApprovalStatus.pending.value and as_utc(row.expires_at) <= (
        now or utcnow()
    )
