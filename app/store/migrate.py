"""`webagent artifacts migrate`: move bytes that rows written before migration 0016 still
hold (`artifacts.data`, `task_attachments.data`) into the artifact store.

Each row: put its bytes under its key, then set storage_key, size and sha256 and clear
`data`; a batch is committed together. Resumable and idempotent: only rows with bytes and
no storage key are picked, and keys are fixed by the row (task, kind, step or attachment
id), so a run cut off between a put and its commit puts the same object again next time.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select, update

from app.db.models import Artifact, TaskAttachment
from app.store.base import ArtifactStore
from app.store.records import artifact_key, attachment_key

SessionFactory = Callable[[], Any]  # async_sessionmaker[AsyncSession]
BATCH = 50


@dataclass(frozen=True)
class Moved:
    artifacts: int
    attachments: int
    bytes: int


async def migrate_blobs(
    sessions: SessionFactory, store: ArtifactStore, *, batch: int = BATCH, limit: int = 0
) -> Moved:
    """Move every legacy blob (at most `limit` rows of each table, 0 = all)."""
    arts, art_bytes = await _move(sessions, store, ARTIFACTS, batch, limit)
    atts, att_bytes = await _move(sessions, store, ATTACHMENTS, batch, limit)
    return Moved(artifacts=arts, attachments=atts, bytes=art_bytes + att_bytes)


@dataclass(frozen=True)
class _Table:
    """A table with legacy bytes: the row's key and content type from its selected columns."""

    model: Any
    columns: tuple[Any, ...]  # (id, ..., content type); `data` is added last
    key: Callable[[Any], str]


ARTIFACTS = _Table(
    Artifact,
    (Artifact.id, Artifact.task_id, Artifact.kind, Artifact.step, Artifact.content_type),
    lambda r: artifact_key(r.task_id, r.kind, r.step),
)
ATTACHMENTS = _Table(
    TaskAttachment,
    (TaskAttachment.id, TaskAttachment.task_id, TaskAttachment.media_type),
    lambda r: attachment_key(r.task_id, r.id),
)


async def _move(
    sessions: SessionFactory, store: ArtifactStore, table: _Table, batch: int, limit: int
) -> tuple[int, int]:
    model, moved, size = table.model, 0, 0
    while not limit or moved < limit:
        take = min(batch, limit - moved) if limit else batch
        async with sessions() as s:
            stmt = (
                select(*table.columns, model.data)
                .where(model.storage_key.is_(None), model.data.is_not(None))
                .order_by(model.id)
                .limit(take)
            )
            rows = (await s.execute(stmt)).all()
            for row in rows:
                data = bytes(row.data)
                blob = await store.put(table.key(row), data, row[len(table.columns) - 1])
                await s.execute(
                    update(model)
                    .where(model.id == row.id)
                    .values(storage_key=blob.key, size=blob.size, sha256=blob.sha256, data=None)
                )
                size += blob.size
            await s.commit()
        moved += len(rows)
        if len(rows) < take:
            break
    return moved, size
