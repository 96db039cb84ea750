"""Cross-run memory: facts, dead ends and per-domain learnings (seed 000 §5.2, issue 21).

Domains are stored lower-cased. Functions flush but never commit. `dead_ends` is each run's
own record; `site_dead_ends` the per-site view later runs read (one row per page + action,
counted, with an expiry by cause).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import delete, func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.dialect import dialect_insert
from app.db.inserts import add_row
from app.db.models import (
    DeadEnd,
    DomainLearning,
    Fact,
    Route,
    SiteDeadEnd,
    SiteExploration,
    WebsiteMemRow,
    new_id,
)
from app.db.types import utcnow

Record = TypeVar("Record", Fact, DeadEnd)  # per-domain memory rows listed the same way


def _norm(domain: str | None) -> str | None:
    return domain.rstrip(".").lower() if domain else None


async def add_fact(
    s: AsyncSession,
    *,
    task_id: str | None,
    tenant_id: str,
    domain: str | None,
    category: str,
    text: str,
    confidence: float,
    source_step: int | None = None,
    key: str | None = None,
    url: str | None = None,
) -> Fact:
    return await add_row(
        s,
        Fact,
        task_id=task_id,
        tenant_id=tenant_id,
        domain=_norm(domain),
        key=key,
        category=category,
        text=text,
        confidence=float(confidence),
        source_step=source_step,
        url=url,
    )


async def add_dead_end(
    s: AsyncSession,
    *,
    task_id: str | None,
    tenant_id: str,
    domain: str | None,
    url: str,
    cause: str,
    description: str | None = None,
    signature: str | None = None,
    step: int | None = None,
) -> DeadEnd:
    return await add_row(
        s,
        DeadEnd,
        task_id=task_id,
        tenant_id=tenant_id,
        domain=_norm(domain),
        url=url,
        cause=cause,
        description=description,
        signature=signature,
        step=step,
    )


async def _list_records(
    s: AsyncSession,
    model: type[Record],
    *,
    tenant_id: str,
    task_id: str | None,
    domain: str | None,
    limit: int,
    newest: bool = False,
) -> list[Record]:
    """Oldest first, filtered by task and/or domain within the tenant; `newest` keeps the
    last `limit` rows instead of the first (still returned oldest first)."""
    stmt = select(model).where(model.tenant_id == tenant_id)
    if task_id is not None:
        stmt = stmt.where(model.task_id == task_id)
    if domain:
        stmt = stmt.where(model.domain == _norm(domain))
    if newest:
        stmt = stmt.order_by(model.created_at.desc(), model.id.desc()).limit(limit)
        return list(reversed((await s.execute(stmt)).scalars().all()))
    stmt = stmt.order_by(model.created_at, model.id).limit(limit)
    return list((await s.execute(stmt)).scalars())


async def list_facts(
    s: AsyncSession,
    *,
    tenant_id: str,
    task_id: str | None = None,
    domain: str | None = None,
    limit: int = 500,
) -> list[Fact]:
    """Facts, oldest first, filtered by task and/or domain within the tenant."""
    return await _list_records(
        s, Fact, tenant_id=tenant_id, task_id=task_id, domain=domain, limit=limit
    )


async def list_dead_ends(
    s: AsyncSession,
    *,
    tenant_id: str,
    task_id: str | None = None,
    domain: str | None = None,
    limit: int = 500,
    newest: bool = False,
) -> list[DeadEnd]:
    """Dead ends, oldest first, filtered by task and/or domain within the tenant."""
    return await _list_records(
        s, DeadEnd, tenant_id=tenant_id, task_id=task_id, domain=domain, limit=limit, newest=newest
    )


async def get_domain_learnings(s: AsyncSession, *, tenant_id: str, domain: str) -> dict[str, Any]:
    """All learnings for a domain as {key: value}."""
    stmt = select(DomainLearning.key, DomainLearning.value).where(
        DomainLearning.tenant_id == tenant_id, DomainLearning.domain == _norm(domain)
    )
    return {key: value for key, value in (await s.execute(stmt)).all()}


async def list_domain_learnings(
    s: AsyncSession, *, tenant_id: str, domain: str | None = None
) -> list[DomainLearning]:
    """Learning rows (with hits and updated_at), most confirmed first."""
    stmt = select(DomainLearning).where(DomainLearning.tenant_id == tenant_id)
    if domain:
        stmt = stmt.where(DomainLearning.domain == _norm(domain))
    stmt = stmt.order_by(DomainLearning.hits.desc(), DomainLearning.key)
    return list((await s.execute(stmt)).scalars())


RUNS_KEPT = 10  # task ids kept per learning (the viewer's "from which runs")


async def put_domain_learning(
    s: AsyncSession,
    *,
    tenant_id: str,
    domain: str,
    key: str,
    value: Any,
    task_id: str | None = None,
) -> None:
    """Upsert a learning: a new key starts at hits=1, a repeat replaces value and adds a hit;
    `task_id` (the run that wrote it) goes to the front of `task_ids`."""
    await _upsert_learning(s, tenant_id=tenant_id, domain=domain, key=key, value=value)
    if task_id is None:
        return
    where = (
        DomainLearning.tenant_id == tenant_id,
        DomainLearning.domain == _norm(domain),
        DomainLearning.key == key,
    )
    runs = (await s.execute(select(DomainLearning.task_ids).where(*where))).scalar_one_or_none()
    runs = [task_id, *[r for r in runs or [] if r != task_id]][:RUNS_KEPT]
    await s.execute(update(DomainLearning).where(*where).values(task_ids=runs))


async def _upsert_learning(
    s: AsyncSession, *, tenant_id: str, domain: str, key: str, value: Any
) -> None:
    table = DomainLearning.__table__
    stmt = dialect_insert(s, table).values(  # type: ignore[arg-type]
        id=new_id(),
        tenant_id=tenant_id,
        domain=_norm(domain),
        key=key,
        value=value,
        hits=1,
        updated_at=utcnow(),
        created_at=utcnow(),
    )
    stmt = stmt.on_conflict_do_update(
        index_elements=["tenant_id", "domain", "key"],
        set_={
            "value": stmt.excluded.value,
            "hits": table.c.hits + 1,
            "updated_at": stmt.excluded.updated_at,
        },
    )
    await s.execute(stmt)


async def record_site_dead_end(
    s: AsyncSession,
    *,
    tenant_id: str,
    domain: str,
    key: str,
    page: str,
    url: str,
    cause: str,
    description: str | None,
    signature: str | None,
    target: str | None,
    task_id: str | None,
    seen: datetime,
    expires_at: datetime | None,
    fingerprint: str | None = None,
) -> None:
    """Count a dead end of a site: a new (page, action) starts at 1, a repeat adds one and
    moves last_seen, the expiry (by its cause, from last_seen), the page state it was seen in
    (`fingerprint`) and the last run."""
    table = SiteDeadEnd.__table__
    stmt = dialect_insert(s, table).values(  # type: ignore[arg-type]
        id=new_id(),
        tenant_id=tenant_id,
        domain=_norm(domain),
        key=key,
        page=page,
        url=url,
        cause=cause,
        description=description,
        signature=signature,
        target=target,
        fingerprint=fingerprint,
        count=1,
        first_seen=seen,
        last_seen=seen,
        expires_at=expires_at,
        first_task_id=task_id,
        last_task_id=task_id,
    )
    stmt = stmt.on_conflict_do_update(
        index_elements=["tenant_id", "domain", "key"],
        set_={
            "count": table.c.count + 1,
            "url": stmt.excluded.url,
            "cause": stmt.excluded.cause,
            "description": stmt.excluded.description,
            "last_seen": stmt.excluded.last_seen,
            "expires_at": stmt.excluded.expires_at,
            "fingerprint": stmt.excluded.fingerprint,
            "last_task_id": stmt.excluded.last_task_id,
        },
    )
    await s.execute(stmt)


async def list_site_dead_ends(
    s: AsyncSession,
    *,
    tenant_id: str,
    domain: str,
    now: datetime | None = None,
    limit: int = 200,
) -> list[SiteDeadEnd]:
    """A site's dead ends, most recently seen first; with `now`, only those not expired."""
    stmt = select(SiteDeadEnd).where(
        SiteDeadEnd.tenant_id == tenant_id, SiteDeadEnd.domain == _norm(domain)
    )
    if now is not None:
        stmt = stmt.where(or_(SiteDeadEnd.expires_at.is_(None), SiteDeadEnd.expires_at > now))
    stmt = stmt.order_by(SiteDeadEnd.last_seen.desc(), SiteDeadEnd.id).limit(limit)
    return list((await s.execute(stmt)).scalars())


async def list_domains(s: AsyncSession, *, tenant_id: str) -> list[dict[str, Any]]:
    """Every domain the tenant has learnings or dead ends for: counts and last update."""
    learned = (
        select(
            DomainLearning.domain,
            func.count().label("n"),
            func.max(DomainLearning.updated_at).label("at"),
        )
        .where(DomainLearning.tenant_id == tenant_id)
        .group_by(DomainLearning.domain)
    )
    dead = (
        select(
            SiteDeadEnd.domain, func.count().label("n"), func.max(SiteDeadEnd.last_seen).label("at")
        )
        .where(SiteDeadEnd.tenant_id == tenant_id)
        .group_by(SiteDeadEnd.domain)
    )
    out: dict[str, dict[str, Any]] = {}
    for field, stmt in (("learnings", learned), ("dead_ends", dead)):
        for domain, n, at in (await s.execute(stmt)).all():
            row = out.setdefault(
                domain, {"domain": domain, "learnings": 0, "dead_ends": 0, "updated_at": at}
            )
            row[field] = n
            row["updated_at"] = max(row["updated_at"], at)
    return sorted(out.values(), key=lambda r: r["domain"])


async def forget_domain(s: AsyncSession, *, tenant_id: str, domain: str) -> int:
    """Forget everything a site taught (issue 32 item 5): its learnings, dead ends, proven
    routes, site explorations and their WebsiteMem versions are deleted; facts and dead
    ends that runs recorded there stay in those runs' own records but no longer belong to
    the site, so no later run reads them. Returns how many rows were deleted or detached."""
    site = _norm(domain)
    removed = 0
    for model in (DomainLearning, SiteDeadEnd, Route, WebsiteMemRow, SiteExploration):
        result = await s.execute(
            delete(model).where(model.tenant_id == tenant_id, model.domain == site)
        )
        removed += result.rowcount or 0  # type: ignore[attr-defined]
    for record in (Fact, DeadEnd):
        result = await s.execute(
            update(record)
            .where(record.tenant_id == tenant_id, record.domain == site)
            .values(domain=None)
        )
        removed += result.rowcount or 0  # type: ignore[attr-defined]
    return removed
