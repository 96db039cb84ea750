"""Run the Alembic tree programmatically (no alembic.ini): `upgrade(url)`.

Async URLs are fine: env.py drives the async engine with `run_sync`. Alembic's
env runs its own event loop, so from async code use `await upgrade_async(url)`.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from importlib.resources import files
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.ext.asyncio import AsyncConnection

from app.db.session import create_engine

URL_ATTRIBUTE = "webagent.url"


def alembic_config(url: str) -> Config:
    """An in-memory Alembic config pointing at the top-level `migrations` package."""
    config = Config()
    config.set_main_option("script_location", str(files("migrations")))
    # The URL travels as an attribute: configparser would mangle '%' in passwords.
    config.attributes[URL_ATTRIBUTE] = url
    return config


def _in_thread_if_loop_running(fn: Any, *args: Any) -> None:
    """Alembic's env calls asyncio.run(); inside a running loop, do it on a helper thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        fn(*args)
        return
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="alembic") as pool:
        pool.submit(fn, *args).result()  # re-raises the migration's error here


def upgrade(url: str, revision: str = "head") -> None:
    """Bring the database at `url` up to `revision` (blocking)."""
    _in_thread_if_loop_running(command.upgrade, alembic_config(url), revision)


def downgrade(url: str, revision: str = "base") -> None:
    """Step the database at `url` down to `revision` (blocking)."""
    _in_thread_if_loop_running(command.downgrade, alembic_config(url), revision)


async def upgrade_async(url: str, revision: str = "head") -> None:
    """`upgrade` without blocking the caller's event loop."""
    await asyncio.to_thread(upgrade, url, revision)


def head_revision() -> str | None:
    """The newest revision in the packaged tree."""
    return ScriptDirectory.from_config(alembic_config("sqlite://")).get_current_head()


async def current_revision(url: str) -> str | None:
    """The revision the database is at (None when never migrated); for health checks."""
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            return await _current(conn)
    finally:
        await engine.dispose()


async def _current(conn: AsyncConnection) -> str | None:
    def read(sync_conn: Any) -> str | None:
        return MigrationContext.configure(sync_conn).get_current_revision()

    return await conn.run_sync(read)
