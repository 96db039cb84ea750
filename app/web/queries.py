"""The run list's query: the API's tenant-scoped, newest-first keyset listing plus a text
search over the instruction, start URL and answer (the API's `GET /v1/tasks` has no text
filter). Cursors are the API's own (app/db/cursor.py)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import ColumnElement, and_, func, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.cursor import decode_cursor, encode_cursor
from app.db.models import Task

PAGE_SIZE = 25
MAX_QUERY_CHARS = 200


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


def _matches(text: str) -> ColumnElement[bool]:
    needle = text.lower()[:MAX_QUERY_CHARS]
    return or_(
        func.lower(Task.instruction).contains(needle, autoescape=True),
        func.lower(func.coalesce(Task.start_url, "")).contains(needle, autoescape=True),
        func.lower(func.coalesce(Task.answer, "")).contains(needle, autoescape=True),
    )


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
        stmt = stmt.where(_matches(flt.text.strip()))
    if flt.cursor:
        at, after_id = decode_cursor(flt.cursor)
        stmt = stmt.where(
            or_(Task.created_at < at, and_(Task.created_at == at, Task.id < after_id))
        )
    stmt = stmt.order_by(Task.created_at.desc(), Task.id.desc()).limit(limit + 1)
    rows = list((await s.execute(stmt)).scalars())
    if len(rows) <= limit:
        return rows, None
    page = rows[:limit]
    return page, encode_cursor(page[-1].created_at, page[-1].id)
