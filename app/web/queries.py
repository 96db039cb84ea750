"""The run list's query: the API's tenant-scoped, newest-first keyset listing plus a text
search over the instruction, start URL and answer (the same as the API's `?q=`,
app/db/repo_tasks.py `text_matches`). Paging is the API's own (`newest_first`)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Task
from app.db.repo_tasks import newest_first, text_matches

PAGE_SIZE = 25


@dataclass(frozen=True)
class RunFilter:
    """What the list form asks for; empty strings mean "any"."""

    status: str = ""
    domain: str = ""
    text: str = ""
    cursor: str = ""

    @property
    def active(self) -> bool:
        return bool(self.status or self.domain or self.text)


async def list_runs(
    s: AsyncSession, *, tenant_id: str, flt: RunFilter, limit: int = PAGE_SIZE
) -> tuple[list[Task], str | None]:
    """One page of the tenant's runs, newest first → (rows, cursor of the next page).

    Raises app.db.errors.InvalidCursor for a cursor this service did not issue.
    """
    stmt = select(Task).where(Task.tenant_id == tenant_id)
    if flt.status:
        stmt = stmt.where(Task.status == flt.status)
    if flt.domain:
        stmt = stmt.where(Task.domain == flt.domain.strip().rstrip(".").lower())
    if flt.text.strip():
        stmt = stmt.where(text_matches(flt.text.strip()))
    return await newest_first(s, stmt, flt.cursor or None, limit)
