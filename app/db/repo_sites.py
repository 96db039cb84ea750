"""Site explorations and the versioned WebsiteMem they write (seed 001 §2.3, issue 21).

Domains are stored lower-cased. Functions flush but never commit. An exploration goes
queued -> running (claimed by one worker) -> succeeded | failed | cancelled; while it runs
its worker refreshes `heartbeat_at` with the progress, and `reap_lost_explorations` fails
the ones whose worker stopped doing so (the lease of app/db/leases.py, shared with tasks).
Each finished exploration adds the domain's next `website_mems` version; tasks read the newest.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.contracts import TaskStatus
from app.db import leases
from app.db.inserts import add_row
from app.db.models import SiteExploration, WebsiteMemRow
from app.db.types import utcnow

LIVE = (TaskStatus.queued.value, TaskStatus.running.value)


def _norm(domain: str) -> str:
    return domain.rstrip(".").lower()


async def create_exploration(
    s: AsyncSession, *, tenant_id: str, domain: str, url: str, params: dict[str, Any]
) -> SiteExploration:
    return await add_row(
        s,
        SiteExploration,
        tenant_id=tenant_id,
        domain=_norm(domain),
        url=url,
        params=params,
        progress={},
        status=TaskStatus.queued.value,
    )


async def get_exploration(
    s: AsyncSession, *, exploration_id: str, tenant_id: str | None = None
) -> SiteExploration | None:
    stmt = select(SiteExploration).where(SiteExploration.id == exploration_id)
    if tenant_id is not None:
        stmt = stmt.where(SiteExploration.tenant_id == tenant_id)
    return (await s.execute(stmt)).scalar_one_or_none()


async def latest_exploration(
    s: AsyncSession, *, tenant_id: str, domain: str
) -> SiteExploration | None:
    """The tenant's newest exploration of the domain (any status)."""
    stmt = (
        select(SiteExploration)
        .where(SiteExploration.tenant_id == tenant_id, SiteExploration.domain == _norm(domain))
        .order_by(SiteExploration.created_at.desc(), SiteExploration.id.desc())
        .limit(1)
    )
    return (await s.execute(stmt)).scalar_one_or_none()


async def _changed(s: AsyncSession, stmt: Any) -> bool:
    return bool(await leases.changed_ids(s, SiteExploration, stmt))


async def claim_exploration(
    s: AsyncSession, *, exploration_id: str, worker_id: str
) -> SiteExploration | None:
    """queued -> running for this worker; None when it is not queued (taken, finished)."""
    if not await leases.claim(s, SiteExploration, row_id=exploration_id, worker_id=worker_id):
        return None
    row = await get_exploration(s, exploration_id=exploration_id)
    if row is not None:
        await s.refresh(row)
    return row


async def report_progress(
    s: AsyncSession, *, exploration_id: str, worker_id: str, progress: dict[str, Any]
) -> bool:
    """Heartbeat with the progress; False when the exploration is no longer this worker's."""
    return await leases.beat(
        s,
        SiteExploration,
        row_id=exploration_id,
        worker_id=worker_id,
        live=(TaskStatus.running.value,),
        values={"progress": progress},
    )


async def finish_exploration(
    s: AsyncSession,
    *,
    exploration_id: str,
    status: TaskStatus,
    progress: dict[str, Any] | None = None,
    version: int | None = None,
    error: str | None = None,
    error_detail: str | None = None,
) -> bool:
    """running -> terminal; False when it was no longer running (reaped)."""
    now = utcnow()
    values: dict[str, Any] = {
        "status": status.value,
        "version": version,
        "error": error,
        "error_detail": error_detail,
        "finished_at": now,
        "updated_at": now,
    }
    if progress is not None:
        values["progress"] = progress
    stmt = (
        update(SiteExploration)
        .where(SiteExploration.id == exploration_id, SiteExploration.status.in_(LIVE))
        .values(**values)
    )
    return await _changed(s, stmt)


async def cancel_exploration(
    s: AsyncSession, *, exploration_id: str, tenant_id: str
) -> SiteExploration | None:
    """queued/running -> cancelled at once (None when there is no such exploration; a
    finished one is returned unchanged). Its worker's next heartbeat finds the row no longer
    running and stops the walk without writing a WebsiteMem."""
    now = utcnow()
    stmt = (
        update(SiteExploration)
        .where(
            SiteExploration.id == exploration_id,
            SiteExploration.tenant_id == tenant_id,
            SiteExploration.status.in_(LIVE),
        )
        .values(status=TaskStatus.cancelled.value, finished_at=now, updated_at=now)
    )
    await _changed(s, stmt)
    row = await get_exploration(s, exploration_id=exploration_id, tenant_id=tenant_id)
    if row is not None:
        await s.refresh(row)
    return row


async def reap_lost_explorations(s: AsyncSession, *, stale_before: datetime) -> int:
    """Fail running explorations whose worker stopped heartbeating (never re-run)."""
    live = (TaskStatus.running.value,)
    return len(await leases.reap(s, SiteExploration, live=live, stale_before=stale_before))


async def save_website_mem(
    s: AsyncSession,
    *,
    tenant_id: str,
    domain: str,
    exploration_id: str | None,
    start_url: str,
    data: dict[str, Any],
) -> int:
    """Store the domain's next WebsiteMem version and return it (two explorations of one
    site finishing together: the loser of the unique (tenant, domain, version) takes the
    next number)."""
    domain = _norm(domain)
    for _ in range(3):
        newest = await s.execute(
            select(func.max(WebsiteMemRow.version)).where(
                WebsiteMemRow.tenant_id == tenant_id, WebsiteMemRow.domain == domain
            )
        )
        version = int(newest.scalar_one_or_none() or 0) + 1
        try:
            async with s.begin_nested():
                await add_row(
                    s,
                    WebsiteMemRow,
                    tenant_id=tenant_id,
                    domain=domain,
                    version=version,
                    exploration_id=exploration_id,
                    start_url=start_url,
                    pages=len(data.get("pages") or []),
                    data={**data, "version": version},
                )
        except IntegrityError:
            continue
        return version
    raise RuntimeError(f"could not number a WebsiteMem version for {domain}")


async def latest_website_mem(
    s: AsyncSession, *, tenant_id: str, domain: str, version: int | None = None
) -> WebsiteMemRow | None:
    """The domain's newest WebsiteMem (or the given version) for the tenant."""
    stmt = select(WebsiteMemRow).where(
        WebsiteMemRow.tenant_id == tenant_id, WebsiteMemRow.domain == _norm(domain)
    )
    if version is not None:
        stmt = stmt.where(WebsiteMemRow.version == version)
    stmt = stmt.order_by(WebsiteMemRow.version.desc()).limit(1)
    return (await s.execute(stmt)).scalar_one_or_none()
