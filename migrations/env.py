"""Alembic environment: one migration tree for Postgres and SQLite, async URLs included."""

from __future__ import annotations

import asyncio
from typing import Any

from alembic import context
from sqlalchemy import pool
from sqlalchemy.engine import Connection, make_url

from app.db.migrate import URL_ATTRIBUTE
from app.db.models import Base
from app.db.session import create_engine

config = context.config
target_metadata = Base.metadata


def _url() -> str:
    url = config.attributes.get(URL_ATTRIBUTE) or config.get_main_option("sqlalchemy.url")
    if not url:
        raise RuntimeError("no database URL given to the migrations")
    return str(url)


def _configure(**kwargs: Any) -> None:
    context.configure(
        target_metadata=target_metadata,
        # SQLite cannot ALTER most things in place; batch mode copies the table.
        render_as_batch=True,
        compare_type=True,
        **kwargs,
    )


def run_offline() -> None:
    """Emit SQL to stdout (`alembic upgrade --sql`)."""
    _configure(url=_url(), literal_binds=True, dialect_opts={"paramstyle": "named"})
    with context.begin_transaction():
        context.run_migrations()


def _run_sync(connection: Connection) -> None:
    _configure(connection=connection)
    with context.begin_transaction():
        context.run_migrations()


async def _run_async(url: str) -> None:
    engine = create_engine(url, poolclass=pool.NullPool)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(_run_sync)
            await connection.commit()
    finally:
        await engine.dispose()


def run_online() -> None:
    """Migrate through the app's own engine factory (WAL and pragmas on SQLite)."""
    connection = config.attributes.get("connection")
    if connection is not None:  # a caller handed us a sync connection (tests, tooling)
        _run_sync(connection)
        return
    url = _url()
    if not make_url(url).get_dialect().is_async:
        raise RuntimeError(f"use an async driver URL (asyncpg/aiosqlite), got {url!r}")
    asyncio.run(_run_async(url))


if context.is_offline_mode():
    run_offline()
else:
    run_online()
