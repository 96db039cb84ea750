"""Worker leases on queued rows: claim, heartbeat, reap (tasks and site explorations).

A job row (app/db/models.py `Task`, `SiteExploration`) goes queued -> running when one
worker claims it, keeps `heartbeat_at` fresh while that worker runs it, and is failed with
`worker_lost` by the reaper once the heartbeat is older than the cut-off (never re-run: no
double runs). Each step is one conditional UPDATE, so concurrent workers, reapers and
cancels cannot both win. Functions flush but never commit.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, and_, or_, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.contracts import ErrorCode, TaskStatus
from app.db.types import utcnow


async def changed_ids(s: AsyncSession, table: Any, stmt: Any) -> list[str]:
    """Run an UPDATE of `table` and return the ids of the rows it changed."""
    stmt = stmt.returning(table.id).execution_options(synchronize_session=False)
    return list((await s.execute(stmt)).scalars())


async def claim(
    s: AsyncSession,
    table: Any,
    *,
    row_id: str,
    worker_id: str,
    where: Sequence[ColumnElement[bool]] = (),
) -> bool:
    """queued -> running for this worker (and `where`); False when someone else got it first
    or it is no longer queued."""
    now = utcnow()
    stmt = (
        update(table)
        .where(table.id == row_id, table.status == TaskStatus.queued.value, *where)
        .values(
            status=TaskStatus.running.value,
            worker_id=worker_id,
            started_at=now,
            heartbeat_at=now,
            updated_at=now,
        )
    )
    return bool(await changed_ids(s, table, stmt))


async def beat(
    s: AsyncSession,
    table: Any,
    *,
    row_id: str,
    worker_id: str,
    live: Sequence[str],
    values: dict[str, Any] | None = None,
) -> bool:
    """Refresh the heartbeat (with `values`); False once the row is no longer live or no
    longer this worker's."""
    now = utcnow()
    stmt = (
        update(table)
        .where(table.id == row_id, table.worker_id == worker_id, table.status.in_(live))
        .values(**(values or {}), heartbeat_at=now, updated_at=now)
    )
    return bool(await changed_ids(s, table, stmt))


async def reap(
    s: AsyncSession,
    table: Any,
    *,
    live: Sequence[str],
    stale_before: datetime,
    values: dict[str, Any] | None = None,
) -> list[str]:
    """Fail the live rows whose worker stopped heartbeating before `stale_before` (a row
    never heartbeated counts by `updated_at`); the ids, sorted."""
    now = utcnow()
    stale = or_(
        table.heartbeat_at < stale_before,
        and_(table.heartbeat_at.is_(None), table.updated_at < stale_before),
    )
    stmt = (
        update(table)
        .where(table.status.in_(live), stale)
        .values(
            **(values or {}),
            status=TaskStatus.failed.value,
            error=ErrorCode.worker_lost.value,
            error_detail=f"no heartbeat since before {stale_before.isoformat()}",
            finished_at=now,
            updated_at=now,
        )
    )
    return sorted(await changed_ids(s, table, stmt))
