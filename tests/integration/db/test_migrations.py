"""The Alembic tree builds exactly the models' schema on both backends, and unwinds."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text

from app.db.migrate import current_revision, downgrade, head_revision, upgrade
from app.db.models import Base
from app.db.partitions import TABLE
from app.db.session import create_engine


def _not_a_partition(name: str | None, kind: str, parents: dict[str, Any]) -> bool:
    """The month partitions of task_events (Postgres, app/db/partitions.py) are not models."""
    return not (kind == "table" and name is not None and name.startswith(f"{TABLE}_"))


async def _diff(url: str) -> list[Any]:
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:

            def run(sync_conn: Any) -> list[Any]:
                ctx = MigrationContext.configure(
                    sync_conn,
                    opts={
                        "compare_type": True,
                        "compare_server_default": True,
                        "include_name": _not_a_partition,
                    },
                )
                return list(compare_metadata(ctx, Base.metadata))

            return await conn.run_sync(run)
    finally:
        await engine.dispose()


async def _tables(url: str) -> set[str]:
    engine = create_engine(url)
    try:
        async with engine.connect() as conn:
            return set(await conn.run_sync(lambda c: inspect(c).get_table_names()))
    finally:
        await engine.dispose()


def _per_partition_unique(diff: Any) -> bool:
    """On Postgres (task_id, seq) is a unique index of every month partition of task_events
    (a partitioned table's unique keys must hold its partition key, ts)."""
    kind, constraint = diff[0], diff[1]
    return (
        kind == "add_constraint"
        and constraint.table.name == TABLE
        and [c.name for c in constraint.columns] == ["task_id", "seq"]
    )


async def test_head_matches_models(empty_url: str) -> None:
    await asyncio.to_thread(upgrade, empty_url)
    diffs = await _diff(empty_url)
    if empty_url.startswith("postgresql"):
        assert len([d for d in diffs if _per_partition_unique(d)]) == 1
        diffs = [d for d in diffs if not _per_partition_unique(d)]
    assert diffs == []
    assert await current_revision(empty_url) == head_revision()


async def test_unmigrated_database_differs(empty_url: str) -> None:
    """Guards the comparison itself: an empty schema must show up as differences."""
    diffs = await _diff(empty_url)
    added = {d[1].name for d in diffs if d[0] == "add_table"}
    assert added == set(Base.metadata.tables)
    assert await current_revision(empty_url) is None


async def test_downgrade_base_then_upgrade_again(empty_url: str) -> None:
    await asyncio.to_thread(upgrade, empty_url)
    await asyncio.to_thread(downgrade, empty_url, "base")
    assert await _tables(empty_url) <= {"alembic_version"}
    assert await current_revision(empty_url) is None
    await asyncio.to_thread(upgrade, empty_url)
    assert await _tables(empty_url) >= set(Base.metadata.tables)


async def test_upgrade_twice_is_a_no_op(empty_url: str) -> None:
    await asyncio.to_thread(upgrade, empty_url)
    await asyncio.to_thread(upgrade, empty_url)
    assert await current_revision(empty_url) == head_revision()


async def test_upgrade_called_inside_running_loop(empty_url: str) -> None:
    """A sync call from async code still works (it hops to a helper thread)."""
    upgrade(empty_url)
    assert await current_revision(empty_url) == head_revision()


@pytest.mark.parametrize("backend", ["sqlite"], indirect=True)
async def test_sqlite_runs_in_wal_mode(db_url: str) -> None:
    engine = create_engine(db_url)
    try:
        async with engine.connect() as conn:
            mode = (await conn.execute(text("PRAGMA journal_mode"))).scalar_one()
            fks = (await conn.execute(text("PRAGMA foreign_keys"))).scalar_one()
            busy = (await conn.execute(text("PRAGMA busy_timeout"))).scalar_one()
    finally:
        await engine.dispose()
    assert (mode, fks, busy) == ("wal", 1, 5000)
