"""Per-domain memory across runs (issue 21; seed 000 §4.2, §5.2, §6.5).

`GET /v1/domains`: every site the tenant's runs learned something about (learning keys,
dead ends, last update). `GET /v1/domains/{domain}`: what was learned there — each learning
key with its value, how often it was confirmed, when, and the runs that wrote it — and the
site's dead ends with cause, count, first/last seen, expiry and runs, the proven routes with
their counters and the facts with where they came from and who used them (issue 34). Both
need the `learnings:read` scope and see only the caller's tenant. `DELETE
/v1/domains/{domain}/learnings` forgets a site (its learnings and dead ends; each run's own
ledger rows stay) and needs `tasks:write`: later runs start there cold.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path
from pydantic import BaseModel, Field

from app.api.deps import LearningsDep, SessionDep, WriterDep
from app.db import repositories

router = APIRouter(prefix="/v1/domains", tags=["domains"])
FACTS = "facts"  # the learning key of a site's facts (workers/agent/memory/site_memory.py)

DomainPath = Annotated[
    str,
    Path(
        min_length=1,
        max_length=255,
        pattern=r"^[A-Za-z0-9.-]+$",
        description="a host name, e.g. shop.example.com (case-insensitive)",
    ),
]


class DomainSummary(BaseModel):
    domain: str
    learnings: int = Field(description="learning keys stored for the domain")
    dead_ends: int = Field(description="dead ends stored for the domain (expired included)")
    updated_at: datetime


class DomainList(BaseModel):
    domains: list[DomainSummary]


class LearningOut(BaseModel):
    key: str = Field(description="e.g. click_tier, bot_protected, route, url_templates, popups")
    value: Any
    hits: int = Field(description="how many runs wrote or confirmed it")
    created_at: datetime | None
    updated_at: datetime
    task_ids: list[str] = Field(description="the runs that wrote it, newest first")


class SiteDeadEndOut(BaseModel):
    page: str
    url: str
    cause: str
    description: str | None
    target: str | None = Field(description="the element the failing action touched")
    count: int
    first_seen: datetime
    last_seen: datetime
    expires_at: datetime | None = Field(description="when it stops steering runs; null: lasts")
    first_task_id: str | None
    last_task_id: str | None


class RouteOut(BaseModel):
    """A proven route: replayed without model calls by a later task of its intent."""

    id: str
    intent: str = Field(description="the instruction with the task's values as {}")
    instruction: str = Field(description="the instruction of the run that wrote it")
    slots: int = Field(description="how many of the task's values it takes (the {} of intent)")
    steps: int
    version: int = Field(description="1 + how often it was rewritten (the site changed)")
    replays: int = Field(description="runs that replayed it")
    fallbacks: int = Field(description="of those, runs where the model took over before its end")
    successes: int = Field(description="of those, runs that passed the service's checks")
    task_id: str | None = Field(description="the run that last wrote it")
    created_at: datetime
    updated_at: datetime
    last_replayed_at: datetime | None


class FactOut(BaseModel):
    """A fact of the site, shown to later runs of its intent or page."""

    key: str
    value: str
    page: str | None = Field(description="the URL it was read on")
    task_id: str | None = Field(description="the run that recorded it")
    seen: str | None = Field(description="when (ISO 8601)")
    used_by: list[str] = Field(description="runs whose prompts showed it, newest first")


class DomainOut(BaseModel):
    domain: str
    learnings: list[LearningOut]
    dead_ends: list[SiteDeadEndOut]
    routes: list[RouteOut] = Field(default_factory=list)
    facts: list[FactOut] = Field(default_factory=list)


class Forgotten(BaseModel):
    domain: str
    removed: int = Field(description="learning and dead-end rows deleted")


def _norm(domain: str) -> str:
    return domain.rstrip(".").lower()


@router.get("", response_model=DomainList)
async def list_domains(session: SessionDep, tenant: LearningsDep) -> DomainList:
    """Every site this tenant's runs learned something about: how many learning keys and
    dead ends are stored there and when they last changed. Needs `learnings:read`."""
    rows = await repositories.list_domains(session, tenant_id=tenant)
    return DomainList(domains=[DomainSummary(**r) for r in rows])


async def domain_memory(session: Any, tenant: str, domain: str) -> DomainOut | None:
    """The domain's learnings and dead ends, or None when the tenant has none there."""
    domain = _norm(domain)
    learned = await repositories.list_domain_learnings(session, tenant_id=tenant, domain=domain)
    dead = await repositories.list_site_dead_ends(session, tenant_id=tenant, domain=domain)
    routes = await repositories.list_routes(session, tenant_id=tenant, domain=domain)
    if not learned and not dead and not routes:
        return None
    return DomainOut(
        domain=domain,
        learnings=[
            LearningOut(
                key=r.key,
                value=r.value,
                hits=r.hits,
                created_at=r.created_at,
                updated_at=r.updated_at,
                task_ids=list(r.task_ids or []),
            )
            for r in learned
        ],
        dead_ends=[
            SiteDeadEndOut(**{name: getattr(r, name) for name in SiteDeadEndOut.model_fields})
            for r in dead
        ],
        routes=[_route(r) for r in routes],
        facts=[f for r in learned if r.key == FACTS for f in _facts(r.value)],
    )


def _route(row: Any) -> RouteOut:
    plain = ("id", "intent", "instruction", "version", "replays", "fallbacks", "successes")
    return RouteOut(
        **{name: getattr(row, name) for name in plain},
        slots=len(row.slots or ()),
        steps=len(row.steps or ()),
        task_id=row.task_id,
        created_at=row.created_at,
        updated_at=row.updated_at,
        last_replayed_at=row.last_replayed_at,
    )


def _facts(value: Any) -> list[FactOut]:
    """The `facts` learning's rows (workers/adapters/site_learning.py writes them)."""
    out = []
    for row in value if isinstance(value, list) else ():
        if not isinstance(row, dict) or not row.get("key"):
            continue
        used = [str(t) for t in row.get("used_by") or () if isinstance(t, str)]
        out.append(
            FactOut(
                key=str(row["key"]),
                value=str(row.get("value", "")),
                page=row.get("url") or None,
                task_id=row.get("task_id") or None,
                seen=row.get("seen") or None,
                used_by=used,
            )
        )
    return out


@router.get("/{domain}", response_model=DomainOut, responses={404: {}})
async def get_domain(domain: DomainPath, session: SessionDep, tenant: LearningsDep) -> DomainOut:
    """What runs learned about one site (click tier, bot walls, route preference, URL
    templates, consent banners, facts), when and from which runs, and its dead ends with
    cause, count, first/last seen and expiry; its proven routes with their intent, slots
    and how often they were replayed, fell back to the model and succeeded; its facts with
    the run and page they came from and the runs they were shown to. 404 when this tenant
    has nothing there."""
    found = await domain_memory(session, tenant, domain)
    if found is None:
        raise HTTPException(status_code=404, detail="nothing learned about this domain")
    return found


@router.delete("/{domain}/learnings", response_model=Forgotten)
async def forget_domain(domain: DomainPath, session: SessionDep, tenant: WriterDep) -> Forgotten:
    """Forget a site: delete its learnings, dead ends, routes, explorations and site map
    for this tenant; facts recorded there stay only in their runs' own records. Later runs
    start there cold. Needs `tasks:write`."""
    removed = await repositories.forget_domain(session, tenant_id=tenant, domain=_norm(domain))
    await session.commit()
    return Forgotten(domain=_norm(domain), removed=removed)
