"""DB fixtures: every test gets its own migrated database on SQLite and on Postgres."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator, Iterator

import asyncpg
import pytest
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, AsyncSession, async_sessionmaker

from app.db.migrate import upgrade
from app.db.session import create_engine, session_factory
from tests.conftest import pg_admin

BACKENDS = ["sqlite", "postgres"]


def _dsn(url: str) -> str:
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


async def _admin(url: str, sql: str) -> None:
    conn = await asyncpg.connect(_dsn(url), timeout=5)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@contextlib.asynccontextmanager
async def _database(postgres_url: str, template: str = "template1") -> AsyncIterator[str]:
    """A new database copied from `template`, dropped afterwards; yields its URL."""
    name = f"webagent_dbtest_{uuid.uuid4().hex[:12]}"
    await _admin(postgres_url, f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    try:
        yield make_url(postgres_url).set(database=name).render_as_string(hide_password=False)
    finally:
        await _admin(postgres_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
async def fresh_pg_url(postgres_url: str) -> AsyncIterator[str]:
    """An empty database created (and dropped) by this test alone."""
    async with _database(postgres_url) as url:
        yield url


@pytest.fixture(scope="session")
def pg_template(postgres_url: str) -> Iterator[str]:
    """A database migrated to head once per session; `db_url` copies it (CREATE DATABASE
    ... TEMPLATE) instead of running the migrations for every test. Sync: async fixtures
    cannot be requested from inside another one."""
    name = f"webagent_dbtemplate_{uuid.uuid4().hex[:12]}"
    pg_admin(f'CREATE DATABASE "{name}"')
    try:
        upgrade(make_url(postgres_url).set(database=name).render_as_string(hide_password=False))
        yield name
    finally:
        pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    yield request.param


@pytest.fixture
def empty_url(backend: str, request: pytest.FixtureRequest) -> str:
    """A fresh, unmigrated database URL for the parametrized backend."""
    if backend == "sqlite":
        return str(request.getfixturevalue("sqlite_url"))
    return str(request.getfixturevalue("fresh_pg_url"))


@pytest.fixture
async def db_url(backend: str, request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """A fresh database at head for the parametrized backend (a copy of a migrated one)."""
    if backend == "sqlite":
        yield str(request.getfixturevalue("migrated_sqlite_url"))
        return
    postgres_url = str(request.getfixturevalue("postgres_url"))
    async with _database(postgres_url, str(request.getfixturevalue("pg_template"))) as url:
        yield url


@pytest.fixture
async def engine(db_url: str) -> AsyncIterator[AsyncEngine]:
    eng = create_engine(db_url)
    try:
        yield eng
    finally:
        await eng.dispose()


@pytest.fixture
def sessions(engine: AsyncEngine) -> async_sessionmaker[AsyncSession]:
    return session_factory(engine)


@pytest.fixture
async def s(sessions: async_sessionmaker[AsyncSession]) -> AsyncIterator[AsyncSession]:
    async with sessions() as session:
        yield session
