"""Cross-run memory: facts, dead ends and per-domain learnings (seed 000 §5.2).

Domains are stored lower-cased. Functions flush but never commit.
"""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.dialect import dialect_insert
from app.db.inserts import add_row
from app.db.models import DeadEnd, DomainLearning, Fact, new_id
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


async def put_domain_learning(
    s: AsyncSession, *, tenant_id: str, domain: str, key: str, value: Any
) -> None:
    """Upsert a learning: a new key starts at hits=1, a repeat replaces value and adds a hit."""
    table = DomainLearning.__table__
    stmt = dialect_insert(s, table).values(  # type: ignore[arg-type]
        id=new_id(),
        tenant_id=tenant_id,
        domain=_norm(domain),
        key=key,
        value=value,
        hits=1,
        updated_at=utcnow(),
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
