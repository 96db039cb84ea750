"""Deleting a task's data for good: `DELETE /v1/tasks/{id}` and the retention pruner.

A task's data is its row and every row that belongs to it: events, artifacts, attachments,
the ledger (snapshot, steps, episodic notes), approvals and webhook deliveries. Per-domain
learnings (facts, dead ends, routes, site memory) are not task data: they stay, and the
ones that name the task lose the reference (`ON DELETE SET NULL` or a plain id column).

Functions flush but never commit: the caller owns the transaction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.contracts import TERMINAL_STATUSES
from app.db.models import (
    Approval,
    Artifact,
    EpisodicNote,
    Ledger,
    LedgerStep,
    Task,
    TaskAttachment,
    TaskEvent,
    WebhookDelivery,
)

TERMINAL_VALUES = tuple(s.value for s in TERMINAL_STATUSES)
# the rows that go with a task, children first (artifacts and attachments: see below)
TASK_CHILDREN: tuple[Any, ...] = (
    TaskEvent,
    LedgerStep,
    EpisodicNote,
    Ledger,
    Approval,
    WebhookDelivery,
)


@dataclass(frozen=True)
class Deleted:
    """What one deletion removed: rows by table, and bytes (blobs, dropped partitions)."""

    rows: dict[str, int]
    size_bytes: int = 0

    @property
    def total_rows(self) -> int:
        return sum(self.rows.values())

    def __add__(self, other: Deleted) -> Deleted:
        rows = dict(self.rows)
        for table, n in other.rows.items():
            rows[table] = rows.get(table, 0) + n
        return Deleted(rows, self.size_bytes + other.size_bytes)


NOTHING = Deleted({})


async def _delete_where(s: AsyncSession, model: Any, task_ids: Sequence[str]) -> int:
    result: Any = await s.execute(
        delete(model)
        .where(model.task_id.in_(task_ids))
        .execution_options(synchronize_session=False)
    )
    return int(result.rowcount or 0)


async def _size_bytes(s: AsyncSession, model: Any, task_ids: Sequence[str]) -> int:
    # the size column (bytes in the artifact store), the row's own bytes before migration 0016
    size = func.coalesce(func.length(model.data), model.size, 0)
    stmt = select(func.coalesce(func.sum(size), 0)).where(model.task_id.in_(task_ids))
    return int((await s.execute(stmt)).scalar_one())


async def delete_task_artifacts(s: AsyncSession, task_ids: Sequence[str]) -> Deleted:
    """The rows of a task's stored files: artifacts and attachments, with their size. The
    bytes themselves live in the artifact store under the task's prefix: the caller removes
    them with `app.store.records.delete_task_blobs` once this transaction has committed
    (a crash in between leaves objects without rows, never rows without objects)."""
    if not task_ids:
        return NOTHING
    blob = await _size_bytes(s, Artifact, task_ids) + await _size_bytes(s, TaskAttachment, task_ids)
    rows = {
        "artifacts": await _delete_where(s, Artifact, task_ids),
        "task_attachments": await _delete_where(s, TaskAttachment, task_ids),
    }
    return Deleted(rows, blob)


async def delete_tasks(s: AsyncSession, task_ids: Sequence[str]) -> Deleted:
    """Delete the tasks and everything that belongs to them (learnings stay)."""
    if not task_ids:
        return NOTHING
    done = await delete_task_artifacts(s, task_ids)
    rows = {model.__tablename__: await _delete_where(s, model, task_ids) for model in TASK_CHILDREN}
    result: Any = await s.execute(
        delete(Task).where(Task.id.in_(task_ids)).execution_options(synchronize_session=False)
    )
    rows["tasks"] = int(result.rowcount or 0)
    return done + Deleted(rows)


async def expired_task_ids(
    s: AsyncSession,
    *,
    finished_before: datetime,
    tenant_ids: Sequence[str] | None = None,
    exclude_tenants: Sequence[str] = (),
    limit: int = 500,
) -> list[str]:
    """Terminal tasks that finished before `finished_before` (oldest first), of the given
    tenants (None: any tenant but `exclude_tenants`)."""
    stmt = select(Task.id).where(
        Task.status.in_(TERMINAL_VALUES), Task.finished_at < finished_before
    )
    if tenant_ids is not None:
        stmt = stmt.where(Task.tenant_id.in_(tenant_ids))
    if exclude_tenants:
        stmt = stmt.where(Task.tenant_id.not_in(exclude_tenants))
    stmt = stmt.order_by(Task.finished_at).limit(limit)
    return list((await s.execute(stmt)).scalars())


async def existing_task_ids(s: AsyncSession, task_ids: Sequence[str]) -> set[str]:
    """Which of `task_ids` still have a task row (the rest are orphans in the store)."""
    found: set[str] = set()
    ids = list(task_ids)
    for start in range(0, len(ids), 500):
        stmt = select(Task.id).where(Task.id.in_(ids[start : start + 500]))
        found.update((await s.execute(stmt)).scalars())
    return found
