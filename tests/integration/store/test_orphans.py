"""Deleting a task whose worker still runs leaves nothing behind (issue 32 item 5): an
artifact written after the row is gone takes its object with it, and retention sweeps the
objects of tasks that have no row once they have been quiet for a while. Both databases,
both store backends."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.repo_retention import delete_tasks
from app.db.types import utcnow
from app.retention import sweep_orphans
from app.store import ArtifactStore
from app.store.records import artifact_key, keep_artifact
from tests.support.task_rows import add_task

Sessions = async_sessionmaker[AsyncSession]


async def test_an_artifact_of_a_deleted_task_leaves_no_object(
    sessions: Sessions, store: ArtifactStore
) -> None:
    async with sessions() as s:
        task = await add_task(s)
        await delete_tasks(s, [task.id])
        await s.commit()
    async with sessions() as s:
        with pytest.raises(IntegrityError):
            await keep_artifact(
                s, store, task_id=task.id, tenant_id=task.tenant_id, kind="trace", step=1,
                content_type="application/zip", data=b"PK trace",
            )  # fmt: skip
    assert not await store.exists(artifact_key(task.id, "trace", 1))


async def test_retention_sweeps_objects_whose_task_is_gone_once_quiet(
    sessions: Sessions, store: ArtifactStore
) -> None:
    async with sessions() as s:
        kept = await add_task(s)
    gone = "tsk_gone0000000000000000"
    await store.put(artifact_key(kept.id, "screenshot", 1), b"kept", "image/jpeg")
    await store.put(artifact_key(gone, "trace", 1), b"orphan", "application/zip")
    await store.put(artifact_key(gone, "download", 2), b"orphan 2", "text/plain")

    # written a moment ago: its row may be on its way, so it stays
    assert await sweep_orphans(sessions, store) == 0
    assert await store.exists(artifact_key(gone, "trace", 1))

    later = utcnow() + timedelta(hours=1)
    assert await sweep_orphans(sessions, store, now=later) == 2
    assert not await store.exists(artifact_key(gone, "trace", 1))
    assert not await store.exists(artifact_key(gone, "download", 2))
    assert await store.exists(artifact_key(kept.id, "screenshot", 1))
