"""Shared fixtures: real services when present; WEBAGENT_REQUIRE_SERVICES=1 makes absence fatal."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

# Shared test servers: fixtures `llm_server` (scripted OpenAI-compatible LLM) and `test_site`.
# `s3_server`: an S3-compatible server (moto) for the artifact store.
pytest_plugins = ["tests.support.llm_server", "tests.support.sites", "tests.support.s3_server"]

REQUIRE_SERVICES = os.environ.get("WEBAGENT_REQUIRE_SERVICES", "") not in ("", "0", "false")
PG_ADMIN_URL = os.environ.get(
    "WEBAGENT_TEST_DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
)
# the one Redis logical DB the tests own (and flush): never another one on a shared Redis
REDIS_URL = os.environ.get("WEBAGENT_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
CHROMIUM = os.environ.get("WEBAGENT_CHROMIUM_PATH", "/usr/bin/chromium")

# Tests browse local test sites only.
os.environ.setdefault("WEBAGENT_ALLOW_PRIVATE_NETWORKS", "true")
# artifact bytes of tests that name no data dir go to a temporary folder, not ./.webagent
os.environ.setdefault("WEBAGENT_ARTIFACT_DIR", tempfile.mkdtemp(prefix="webagent-test-artifacts-"))


REDIS_GROUP = "redis"


@pytest.hookimpl(tryfirst=True)  # before xdist reads the groups
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under `pytest -n N --dist loadgroup` (make test) every test that uses the one Redis
    logical DB runs in the same process: the DB is flushed per session, and queues, worker
    registrations and streams are shared by name. A test that asks for it at run time
    (`request.getfixturevalue`) is marked `redis`. tests/e2e go there too: its deployments
    are package-scoped (one of them on Redis), and one process sets each up once, as a
    serial run does. Postgres needs no grouping (one database per session); the rest
    spread freely."""
    e2e = Path(__file__).parent / "e2e"
    for item in items:
        if (
            "redis_url" in getattr(item, "fixturenames", ())
            or item.get_closest_marker("redis")
            or e2e in item.path.parents
        ):
            item.add_marker(pytest.mark.xdist_group(REDIS_GROUP))
            if config.getoption("loadgroup", False):
                _group_id(item)


def _group_id(item: pytest.Item) -> None:
    """The controller schedules by a `@group` suffix on the node id, which xdist 3.8 writes
    to `item._nodeid`; pytest 9 reads node ids from `item._id`, so it is written here."""
    from _pytest.nodeid import NodeId

    if isinstance(getattr(item, "_id", None), NodeId) and "@" not in item.nodeid:
        item._id = NodeId.parse(f"{item.nodeid}@{REDIS_GROUP}")  # type: ignore[attr-defined]


def unavailable(what: str, why: str) -> None:
    """Skip locally, fail in CI: a missing service must never pass silently there."""
    message = f"{what} not available: {why}"
    if REQUIRE_SERVICES:
        pytest.fail(message + " (WEBAGENT_REQUIRE_SERVICES=1)", pytrace=False)
    pytest.skip(message)


def pg_admin(sql: str) -> None:
    """Run `sql` on the admin database; on a helper thread, so that it works when first
    requested by an async fixture as well (a loop is running there)."""
    import asyncpg

    async def run() -> None:
        dsn = PG_ADMIN_URL.replace("postgresql+asyncpg://", "postgresql://")
        conn = await asyncpg.connect(dsn, timeout=5)
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        pool.submit(asyncio.run, run()).result()


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A fresh, empty Postgres database for this test session, dropped afterwards."""
    name = f"webagent_test_{uuid.uuid4().hex[:10]}"
    try:
        pg_admin(f'CREATE DATABASE "{name}"')
    except Exception as exc:  # any connection failure means "no Postgres here"
        unavailable("PostgreSQL", repr(exc))
    base = PG_ADMIN_URL.rsplit("/", 1)[0]
    yield f"{base}/{name}"
    pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture(scope="session")
def redis_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """The Redis logical database WEBAGENT_TEST_REDIS_URL names, flushed before and after."""
    import redis

    item = getattr(request, "_pyfuncitem", None)  # the test that first asked for it
    if os.environ.get("PYTEST_XDIST_WORKER") and item is not None:
        marks = [m.args for m in item.iter_markers("xdist_group")]
        if (REDIS_GROUP,) not in marks:
            pytest.fail(f"{item.nodeid} uses Redis without the `redis` mark", pytrace=False)
    url = REDIS_URL
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=3)
        client.ping()
        client.flushdb()
    except Exception as exc:
        unavailable("Redis", repr(exc))
    yield url
    client.flushdb()
    client.close()


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = shutil.which(CHROMIUM) or (CHROMIUM if os.access(CHROMIUM, os.X_OK) else None)
    if not path:
        unavailable("Chromium", f"{CHROMIUM} missing (make setup installs it)")
    return path  # type: ignore[return-value]


@pytest.fixture(scope="session")
async def chromium_browser(chromium_path: str) -> AsyncIterator[object]:
    """One Chromium for the whole test session (the pool's model: one warm browser, a fresh
    context per task); tests open their own context on it and close it."""
    from playwright.async_api import async_playwright

    from app.settings import Settings
    from workers.browser.runtime.launch import launch_chromium

    async with async_playwright() as pw:
        browser = await launch_chromium(pw, Settings(chromium_path=chromium_path))
        try:
            yield browser
        finally:
            await browser.close()


@pytest.fixture
def sqlite_url(tmp_path: os.PathLike[str]) -> str:
    return f"sqlite+aiosqlite:///{tmp_path}/webagent.db"


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A SQLite database migrated to head once per session (`migrated_sqlite_url` copies it:
    running the migrations for every test's fresh file costs far more than a copy)."""
    from app.db.migrate import upgrade

    path = tmp_path_factory.mktemp("sqlite-template") / "webagent.db"
    upgrade(f"sqlite+aiosqlite:///{path}")
    assert not path.with_name("webagent.db-wal").exists()  # all of it is in the one file
    return path


@pytest.fixture
def migrated_sqlite_url(sqlite_template: Path, sqlite_url: str, tmp_path: Path) -> str:
    """`sqlite_url`, a fresh database at head: a copy of the session's migrated template."""
    shutil.copyfile(sqlite_template, tmp_path / "webagent.db")
    return sqlite_url


@pytest.fixture
async def anyio_backend() -> AsyncIterator[str]:
    yield "asyncio"
