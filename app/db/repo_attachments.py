"""Files uploaded with a task (table task_attachments, migration 0008): stored with the task,
read by the worker that runs it (seed 001 App. A.5: upload_file uses only these)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import TaskAttachment


@dataclass(frozen=True)
class Attachment:
    name: str
    media_type: str
    data: bytes


async def add_attachments(s: AsyncSession, task_id: str, files: Sequence[Attachment]) -> None:
    for f in files:
        s.add(
            TaskAttachment(
                task_id=task_id, name=f.name, media_type=f.media_type, size=len(f.data), data=f.data
            )
        )
    await s.flush()


async def load_attachments(s: AsyncSession, task_id: str) -> list[Attachment]:
    query = select(TaskAttachment).where(TaskAttachment.task_id == task_id)
    rows = await s.scalars(query.order_by(TaskAttachment.name))
    return [Attachment(r.name, r.media_type, r.data) for r in rows]
