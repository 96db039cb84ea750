"""Backend-specific INSERT so upserts use ON CONFLICT on both Postgres and SQLite."""

from __future__ import annotations

from sqlalchemy import Table
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.errors import UnsupportedBackend

Insert = postgresql.Insert | sqlite.Insert


def dialect_insert(s: AsyncSession, table: Table) -> Insert:
    """An INSERT construct with `on_conflict_do_*` for the session's backend."""
    name = s.get_bind().dialect.name
    if name == "postgresql":
        return postgresql.insert(table)
    if name == "sqlite":
        return sqlite.insert(table)
    raise UnsupportedBackend(f"unsupported database backend {name!r}")
