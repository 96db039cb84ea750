"""Artifact rows and their bytes together: keep (store, then row), read (store, or the
legacy column of rows not yet moved), and delete a task's objects.

Keys: `tasks/<task_id>/<kind>/<step>` for artifacts (one per (task, kind, step), so a
replaced artifact overwrites its object) and `tasks/<task_id>/attachments/<row id>` for the files
uploaded with a task. Everything of a task is under `tasks/<task_id>/`: `delete_task_blobs`
removes it in one call (for task deletion and retention).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import repositories
from app.db.models import Artifact, TaskAttachment, new_id
from app.db.repo_attachments import Attachment
from app.store.base import ArtifactStore, BlobMissing

TASKS_PREFIX = "tasks/"


def task_prefix(task_id: str) -> str:
    return f"{TASKS_PREFIX}{task_id}/"


def artifact_key(task_id: str, kind: str, step: int) -> str:
    return f"{task_prefix(task_id)}{kind}/{step}"


def attachment_key(task_id: str, row_id: str) -> str:
    return f"{task_prefix(task_id)}attachments/{row_id}"


async def keep_artifact(
    s: AsyncSession,
    store: ArtifactStore,
    *,
    task_id: str,
    tenant_id: str,
    kind: str,
    step: int,
    content_type: str,
    data: bytes,
    name: str | None = None,
) -> str:
    """Put the bytes in the store, then insert or replace the row (caller commits); the
    artifact id. A row never points at an object that was not written."""
    blob = await store.put(artifact_key(task_id, kind, step), data, content_type)
    try:
        return await repositories.save_artifact(
            s,
            task_id=task_id,
            tenant_id=tenant_id,
            kind=kind,
            step=step,
            content_type=content_type,
            storage_key=blob.key,
            size=blob.size,
            sha256=blob.sha256,
            name=name,
        )
    except IntegrityError:  # the task was deleted while its worker ran: leave no orphan
        await store.delete(blob.key)
        raise


@dataclass(frozen=True)
class Served:
    """How the API hands out an artifact: a redirect URL or a stream of chunks."""

    url: str | None = None
    chunks: AsyncIterator[bytes] | None = None


async def serve_artifact(
    s: AsyncSession, store: ArtifactStore, row: Artifact, presign_s: int
) -> Served:
    """A presigned URL (presign_s > 0 and the store signs), else the bytes as a stream; a
    row from before migration 0016 is served from its own column. BlobMissing if neither."""
    if row.storage_key:
        if presign_s > 0:
            url = await store.presign(row.storage_key, presign_s)
            if url is not None:
                return Served(url=url)
        return Served(chunks=await store.stream(row.storage_key))
    data = await repositories.legacy_artifact_data(s, row.id)
    if data is None:
        raise BlobMissing(row.id)
    return Served(chunks=_one(data))


async def read_artifact(s: AsyncSession, store: ArtifactStore, row: Artifact) -> bytes:
    """The whole artifact (tests, small consumers)."""
    if row.storage_key:
        return await store.get(row.storage_key)
    data = await repositories.legacy_artifact_data(s, row.id)
    if data is None:
        raise BlobMissing(row.id)
    return data


async def _one(data: bytes) -> AsyncIterator[bytes]:
    yield data


async def add_attachments(
    s: AsyncSession, store: ArtifactStore, task_id: str, files: Sequence[Attachment]
) -> None:
    """The task's uploaded files into the store, their rows into the session (caller commits)."""
    for f in files:
        row_id = new_id()
        blob = await store.put(attachment_key(task_id, row_id), f.data, f.media_type)
        s.add(
            TaskAttachment(
                id=row_id,
                task_id=task_id,
                name=f.name,
                media_type=f.media_type,
                size=blob.size,
                sha256=blob.sha256,
                storage_key=blob.key,
            )
        )
    await s.flush()


async def load_attachments(s: AsyncSession, store: ArtifactStore, task_id: str) -> list[Attachment]:
    """The task's uploaded files with their bytes, by name."""
    query = select(TaskAttachment).where(TaskAttachment.task_id == task_id)
    rows = list(await s.scalars(query.order_by(TaskAttachment.name)))
    files = []
    for r in rows:
        if r.storage_key:
            data = await store.get(r.storage_key)
        else:  # written before migration 0016 and not moved yet
            legacy = select(TaskAttachment.data).where(TaskAttachment.id == r.id)
            data = bytes((await s.execute(legacy)).scalar_one() or b"")
        files.append(Attachment(r.name, r.media_type, data))
    return files


async def delete_task_blobs(store: ArtifactStore, task_id: str) -> int:
    """Remove every object of the task (artifacts, trace, attachments); how many there were.
    For task deletion and retention: delete the rows in the same breath."""
    return await store.delete_prefix(task_prefix(task_id))
