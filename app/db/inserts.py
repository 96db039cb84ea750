"""The one way an append-only row is written: a fresh id, created now, flushed (not committed)."""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Base, new_id
from app.db.types import utcnow

Row = TypeVar("Row", bound=Base)


async def add_row(s: AsyncSession, model: type[Row], **columns: Any) -> Row:
    """A new `model` row with `columns`, its id and created_at filled in; flushed."""
    row = model(id=new_id(), created_at=utcnow(), **columns)
    s.add(row)
    await s.flush()
    return row
