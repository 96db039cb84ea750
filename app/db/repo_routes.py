"""Proven routes per site (issue 21; workers/agent/memory/routes.py is what they mean).

One row per (tenant, domain, intent). Domains are stored lower-cased. Functions flush but
never commit.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Route
from app.db.types import utcnow

ROUTES_PER_DOMAIN = 50  # the newest routes of a domain a new task may replay


def _norm(domain: str) -> str:
    return domain.rstrip(".").lower()


async def list_routes(
    s: AsyncSession, *, tenant_id: str, domain: str, limit: int = ROUTES_PER_DOMAIN
) -> list[Route]:
    """A site's routes, most recently written first."""
    stmt = (
        select(Route)
        .where(Route.tenant_id == tenant_id, Route.domain == _norm(domain))
        .order_by(Route.updated_at.desc(), Route.id)
        .limit(limit)
    )
    return list((await s.execute(stmt)).scalars())


async def save_route(
    s: AsyncSession,
    *,
    tenant_id: str,
    domain: str,
    intent_key: str,
    route_id: str = "",
    task_id: str | None = None,
    **values: Any,
) -> Route:
    """Write a route: a rewrite of `route_id` (the site changed), else the route of the same
    intent replaced (a new version) or inserted. `values`: intent, instruction, slots, start,
    steps."""
    where = [Route.tenant_id == tenant_id, Route.domain == _norm(domain)]
    row = None
    if route_id:
        row = (
            await s.execute(select(Route).where(*where, Route.id == route_id))
        ).scalar_one_or_none()
    if row is not None:  # the intent may have widened: a row already there for it goes
        await s.execute(
            delete(Route).where(*where, Route.intent_key == intent_key, Route.id != row.id)
        )
    else:
        found = select(Route).where(*where, Route.intent_key == intent_key)
        row = (await s.execute(found)).scalar_one_or_none()
    if row is None:
        row = Route(tenant_id=tenant_id, domain=_norm(domain), version=0, replays=0)
        s.add(row)
    for key, value in values.items():
        setattr(row, key, value)
    row.intent_key, row.task_id = intent_key, task_id
    row.version = (row.version or 0) + 1
    row.updated_at = utcnow()
    await s.flush()
    return row


async def count_route_replay(
    s: AsyncSession,
    *,
    tenant_id: str,
    route_id: str,
    fell_back: bool = False,
    succeeded: bool = True,
) -> None:
    """One run replayed the route: whether the model took over before its end, whether the
    run passed the service's checks (issue 34: what `GET /v1/domains/{d}` shows)."""
    await s.execute(
        update(Route)
        .where(Route.tenant_id == tenant_id, Route.id == route_id)
        .values(
            replays=Route.replays + 1,
            fallbacks=Route.fallbacks + int(fell_back),
            successes=Route.successes + int(succeeded),
            last_replayed_at=utcnow(),
        )
    )


async def forget_routes(s: AsyncSession, *, tenant_id: str, domain: str) -> int:
    result = await s.execute(
        delete(Route).where(Route.tenant_id == tenant_id, Route.domain == _norm(domain))
    )
    return result.rowcount or 0  # type: ignore[attr-defined]
