"""Engine and session construction for Postgres (asyncpg) and SQLite (aiosqlite)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import event
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker
from sqlalchemy.ext.asyncio import create_async_engine as _create_async_engine
from sqlalchemy.pool import StaticPool

SQLITE_BUSY_TIMEOUT_MS = 5000


def _sqlite_file(url: str) -> Path | None:
    """The database file of a SQLite URL, or None for in-memory databases."""
    database = make_url(url).database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def _on_sqlite_connect(dbapi_connection: Any, _record: Any) -> None:
    """WAL lets readers run beside the one writer; busy_timeout makes writers queue."""
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA synchronous=NORMAL")
    finally:
        cursor.close()


def is_sqlite(url: str) -> bool:
    return make_url(url).get_backend_name() == "sqlite"


def create_engine(url: str, **kwargs: Any) -> AsyncEngine:
    """An async engine tuned per backend; extra kwargs go to SQLAlchemy (e.g. poolclass)."""
    if is_sqlite(url):
        path = _sqlite_file(url)
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
        else:  # one shared connection, or every checkout would see a new empty database
            kwargs.setdefault("poolclass", StaticPool)
        kwargs.setdefault("connect_args", {}).setdefault("timeout", SQLITE_BUSY_TIMEOUT_MS / 1000)
        engine = _create_async_engine(url, **kwargs)
        event.listen(engine.sync_engine, "connect", _on_sqlite_connect)
        return engine
    if "poolclass" not in kwargs:
        kwargs.setdefault("pool_size", 10)
        kwargs.setdefault("max_overflow", 10)
        kwargs.setdefault("pool_recycle", 1800)
    kwargs.setdefault("pool_pre_ping", True)
    return _create_async_engine(url, **kwargs)


def session_factory(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    """Sessions keep loaded attributes after commit so rows can be returned to callers."""
    return async_sessionmaker(engine, expire_on_commit=False, class_=AsyncSession)
