"""Engine construction details that deployments rely on."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import text

from app.contracts import DEFAULT_TENANT
from app.db import repositories as repo
from app.db.migrate import upgrade_async
from app.db.session import create_engine, session_factory


async def test_sqlite_parent_directory_is_created(tmp_path: Path) -> None:
    db_file = tmp_path / "nested" / "deeper" / "webagent.db"
    url = f"sqlite+aiosqlite:///{db_file}"
    await upgrade_async(url)
    engine = create_engine(url)
    try:
        async with session_factory(engine)() as s:
            task, _ = await repo.create_task(
                s,
                tenant_id=DEFAULT_TENANT,
                instruction="hi",
                start_url="https://example.com",
                max_steps=1,
                timeout_s=1.0,
                allowed_domains=[],
                metadata={},
            )
            await s.commit()
    finally:
        await engine.dispose()
    assert db_file.exists()
    reopened = create_engine(url)
    try:
        async with session_factory(reopened)() as s:
            assert await repo.get_task(s, task_id=task.id) is not None
    finally:
        await reopened.dispose()


async def test_in_memory_sqlite_is_one_database_across_sessions() -> None:
    engine = create_engine("sqlite+aiosqlite://")
    try:
        async with engine.begin() as conn:
            await conn.execute(text("CREATE TABLE t (x INTEGER)"))
            await conn.execute(text("INSERT INTO t VALUES (7)"))
        async with session_factory(engine)() as s:
            assert (await s.execute(text("SELECT x FROM t"))).scalar_one() == 7
    finally:
        await engine.dispose()
