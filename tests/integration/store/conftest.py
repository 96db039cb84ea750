"""`store`: the artifact store under test, once per backend (local folder, S3 via moto);
`sessions`: a migrated database, once per backend (SQLite, Postgres)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import create_engine, session_factory
from app.db.migrate import upgrade
from app.store import ArtifactStore, StoreConfig, open_store
from tests.support.s3_server import S3Server


@pytest.fixture(params=["local", "s3"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> ArtifactStore:
    if request.param == "local":
        return open_store(StoreConfig(backend="local", local_dir=str(tmp_path / "artifacts")))
    server: S3Server = request.getfixturevalue("s3_server")
    return open_store(server.config(server.new_bucket()))


@pytest.fixture(params=["sqlite", "postgres"])
def db_url(request: pytest.FixtureRequest) -> str:
    """A migrated database: a fresh SQLite file, or this session's Postgres database."""
    if request.param == "postgres":
        url = str(request.getfixturevalue("postgres_url"))
        upgrade(url)
        return url
    return str(request.getfixturevalue("migrated_sqlite_url"))


@pytest.fixture
async def sessions(db_url: str) -> AsyncIterator[async_sessionmaker[AsyncSession]]:
    engine = create_engine(db_url)
    yield session_factory(engine)
    await engine.dispose()
