"""Fixtures for worker integration tests: a local site and a migrated database.

A job test runs on SQLite (the embedded layout's store) unless its module is marked
`both_databases`: then on Postgres too. The repositories themselves are tested on both
backends (tests/integration/db), and the production e2e chain runs jobs on Postgres; a job
test repeated per backend doubled the suite's longest runs (1,100 s of worker time) to
check the same moves. Modules about the store's own guarantees (ownership, the sink and its
outages, the reaper, final events) keep both."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import create_engine, session_factory
from app.db.migrate import upgrade
from tests.integration.workers.site import LocalSite, serve_site
from tests.support.llm_server import ScriptedLLMServer
from tests.support.task_rows import add_task
from tests.support.worker_proc import worker_env


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


@pytest.fixture
def supervisor_env(
    chromium_path: str,
    migrated_pg_url: str,
    redis_url: str,
    llm_server: ScriptedLLMServer,
    tmp_path: Path,
) -> dict[str, str]:
    """The environment of a `webagent worker` on the test databases and model server."""
    return worker_env(
        database_url=migrated_pg_url,
        redis_url=redis_url,
        llm_base_url=llm_server.base_url,
        chromium_path=chromium_path,
        data_dir=tmp_path,
    )


BOTH = "both_databases"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "db_url" in metafunc.fixturenames:
        both = metafunc.definition.get_closest_marker(BOTH) is not None
        backends = ["sqlite", "postgres"] if both else ["sqlite"]
        metafunc.parametrize("db_url", backends, indirect=True)


@pytest.fixture
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
        task = await add_task(
            s,
            instruction=instruction,
            start_url=start_url,
            max_steps=max_steps,
            timeout_s=timeout_s,
        )
        return task.id


async def wait_until(predicate: Callable[[], object], timeout: float = 30) -> None:
    """Poll `predicate` every 50 ms until it is truthy (TimeoutError after `timeout` s)."""
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.05)
