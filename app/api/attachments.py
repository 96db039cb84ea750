"""Files uploaded with a task (seed 001 App. A.5): checked at admission (app/api/admission.py),
kept in the artifact store with metadata rows (app/store/records.py), staged for upload_file
by the worker."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Task
from app.db.repo_attachments import Attachment
from app.store import ArtifactStore
from app.store.records import add_attachments


async def store(
    session: AsyncSession,
    blobs: ArtifactStore,
    task: Task,
    files: list[Attachment],
    *,
    allow_scripts: bool,
) -> None:
    """The new task's migration 0008 columns and its files, in the creating transaction."""
    task.allow_scripts = allow_scripts
    task.attachment_names = [f.name for f in files]
    await add_attachments(session, blobs, task.id, files)
