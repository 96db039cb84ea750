"""Per-task records: durable step events, artifact metadata and the ledger snapshot.

Functions flush but never commit: the caller owns the transaction.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.contracts import Event
from app.db.dialect import dialect_insert
from app.db.models import Artifact, Ledger, TaskEvent, new_id
from app.db.types import utcnow


async def append_event(
    s: AsyncSession,
    *,
    task_id: str,
    seq: int,
    type: str,
    data: dict[str, Any],
    ts: datetime | None = None,
) -> TaskEvent:
    """Insert one event; a duplicate (task_id, seq) raises IntegrityError on flush."""
    event = TaskEvent(
        id=new_id(), task_id=task_id, seq=seq, ts=ts or utcnow(), type=str(type), data=data
    )
    s.add(event)
    await s.flush()
    return event


async def next_event_seq(s: AsyncSession, *, task_id: str) -> int:
    """max(seq)+1 for the task, 1 for its first event."""
    stmt = select(func.max(TaskEvent.seq)).where(TaskEvent.task_id == task_id)
    last = (await s.execute(stmt)).scalar_one_or_none()
    return int(last or 0) + 1


async def list_events(
    s: AsyncSession, *, task_id: str, after_seq: int = 0, limit: int = 1000
) -> list[TaskEvent]:
    """Events with seq > after_seq in seq order (SSE replay after Last-Event-ID)."""
    stmt = (
        select(TaskEvent)
        .where(TaskEvent.task_id == task_id, TaskEvent.seq > after_seq)
        .order_by(TaskEvent.seq)
        .limit(limit)
    )
    return list((await s.execute(stmt)).scalars())


def event_to_contract(event: TaskEvent) -> Event:
    """The wire shape of a stored event."""
    return Event(
        id=event.id,
        task_id=event.task_id,
        seq=event.seq,
        ts=event.ts,
        type=event.type,
        data=dict(event.data or {}),
    )


async def save_artifact(
    s: AsyncSession,
    *,
    task_id: str,
    tenant_id: str,
    kind: str,
    step: int,
    content_type: str,
    storage_key: str,
    size: int,
    sha256: str,
    name: str | None = None,
) -> str:
    """Insert or replace the artifact row for (task, kind, step) whose bytes are already in
    the store under `storage_key` (app/store/records.py keep_artifact); returns its id."""
    table = Artifact.__table__
    stmt = dialect_insert(s, table).values(  # type: ignore[arg-type]
        id=new_id(),
        task_id=task_id,
        tenant_id=tenant_id,
        kind=kind,
        step=step,
        content_type=content_type,
        size=size,
        sha256=sha256,
        storage_key=storage_key,
        name=name,
        created_at=utcnow(),
    )
    stmt = stmt.on_conflict_do_update(
        index_elements=["task_id", "kind", "step"],
        set_={
            "content_type": stmt.excluded.content_type,
            "size": stmt.excluded.size,
            "sha256": stmt.excluded.sha256,
            "storage_key": stmt.excluded.storage_key,
            "data": None,
            "name": stmt.excluded.name,
            "created_at": stmt.excluded.created_at,
        },
    )
    artifact_id = (await s.execute(stmt.returning(table.c.id))).scalar_one()
    return str(artifact_id)


async def get_artifact(s: AsyncSession, *, task_id: str, kind: str, step: int) -> Artifact | None:
    """The row's metadata; its bytes come from app/store/records.py read_artifact."""
    stmt = (
        select(Artifact)
        .where(Artifact.task_id == task_id, Artifact.kind == kind, Artifact.step == step)
        .execution_options(populate_existing=True)
    )
    return (await s.execute(stmt)).scalar_one_or_none()


async def list_artifacts(
    s: AsyncSession, *, task_id: str, kind: str | None = None
) -> list[Artifact]:
    """Artifact metadata in step order."""
    stmt = select(Artifact).where(Artifact.task_id == task_id)
    if kind is not None:
        stmt = stmt.where(Artifact.kind == kind)
    stmt = stmt.order_by(Artifact.step, Artifact.kind)
    return list((await s.execute(stmt)).scalars())


async def legacy_artifact_data(s: AsyncSession, artifact_id: str) -> bytes | None:
    """The bytes a row written before migration 0016 still holds (None once moved out)."""
    stmt = select(Artifact.data).where(Artifact.id == artifact_id)
    data = (await s.execute(stmt)).scalar_one_or_none()
    return bytes(data) if data is not None else None


async def save_ledger(
    s: AsyncSession, *, task_id: str, tenant_id: str, data: dict[str, Any]
) -> None:
    """Replace the task's ledger snapshot (one row per task)."""
    table = Ledger.__table__
    now = utcnow()
    stmt = dialect_insert(s, table).values(  # type: ignore[arg-type]
        id=new_id(), task_id=task_id, tenant_id=tenant_id, data=data, updated_at=now
    )
    stmt = stmt.on_conflict_do_update(
        index_elements=["task_id"],
        set_={"data": stmt.excluded.data, "updated_at": stmt.excluded.updated_at},
    )
    await s.execute(stmt)


async def get_ledger(s: AsyncSession, *, task_id: str) -> Ledger | None:
    """The latest ledger row (its `.data` is the snapshot), or None."""
    stmt = select(Ledger).where(Ledger.task_id == task_id).execution_options(populate_existing=True)
    return (await s.execute(stmt)).scalar_one_or_none()
