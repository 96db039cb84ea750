"""Files uploaded with a task (seed 001 App. A.5): checked against the settings' size cap,
kept in the artifact store with metadata rows (app/store/records.py), staged for upload_file
by the worker."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app.api.inputs import invalid
from app.api.schemas import TaskCreate
from app.db.models import Task
from app.db.repo_attachments import Attachment
from app.settings import Settings
from app.store import ArtifactStore
from app.store.records import add_attachments


def checked(body: TaskCreate, settings: Settings) -> list[Attachment]:
    """The decoded files; a 422 at body.attachments for duplicate names or too many bytes."""
    files = [Attachment(a.name, a.media_type, a.content()) for a in body.attachments]
    names = [f.name for f in files]
    if len(set(names)) != len(names):
        invalid(("body", "attachments"), "attachment names must be unique", names, "value_error")
    total = sum(len(f.data) for f in files)
    if total > settings.attachments_max_bytes:
        invalid(
            ("body", "attachments"),
            f"attachments are {total} bytes; the limit is {settings.attachments_max_bytes}"
            " (WEBAGENT_ATTACHMENTS_MAX_BYTES)",
            names,
            "too_long",
        )
    return files


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
