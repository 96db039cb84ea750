"""Fixtures for worker integration tests: a local site and migrated databases (both backends)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import create_engine, repositories, session_factory
from app.db.migrate import upgrade
from tests.integration.workers.site import LocalSite, serve_site


@pytest.fixture
def local_site() -> Iterator[LocalSite]:
    site, server = serve_site()
    yield site
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def migrated_pg_url(postgres_url: str) -> str:
    upgrade(postgres_url)
    return postgres_url


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest) -> str:
    """A migrated database: a fresh SQLite file, or the session's Postgres database."""
    if request.param == "postgres":
        return str(request.getfixturevalue("migrated_pg_url"))
    return str(request.getfixturevalue("migrated_sqlite_url"))


@pytest.fixture
async def sessions(db_url: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    engine = create_engine(db_url)
    yield session_factory(engine)
    await engine.dispose()


async def new_task(
    sessions: async_sessionmaker[AsyncSession],
    *,
    start_url: str | None = "http://127.0.0.1:1/",
    max_steps: int = 5,
    timeout_s: float = 60.0,
    instruction: str = "find the answer",
) -> str:
    """Insert a queued task and return its id."""
    async with sessions() as s:
        task, _ = await repositories.create_task(
            s,
            tenant_id="default",
            instruction=instruction,
            start_url=start_url,
            max_steps=max_steps,
            timeout_s=timeout_s,
            allowed_domains=(),
            metadata={},
        )
        await s.commit()
        return task.id
