"""Site exploration (issue 21; seed 001 §2.3, App. A.2): start one, follow it, read its result.

`POST /v1/sites/explore` queues a deterministic exploration of the URL's site on the same
workers as tasks (no model calls; 202 with the job's `id`). `GET /v1/sites/explore/{id}`
gives its status, progress and, once succeeded, the WebsiteMem it wrote; `POST
/v1/sites/explore/{id}/cancel` stops it. `GET
/v1/sites/{domain}` gives the site's newest WebsiteMem (pages with titles, section outlines
and summaries, list/item templates, element behaviours, what was skipped and why).

Scopes: starting or cancelling one needs `tasks:write` — it drives a browser against a site on the
tenant's behalf exactly like a task (same workers, same URL policy and egress guard); the
reads need `learnings:read`, the scope of what the tenant's runs learned about sites. Every
row is the caller's tenant's; another tenant's exploration is a 404.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from fastapi import APIRouter, HTTPException, Response, status
from pydantic import BaseModel, Field, field_validator

from app.api.admission import refusal
from app.api.deps import DispatcherDep, LearningsDep, SessionDep, SettingsDep, WriterDep
from app.api.domains import DomainPath
from app.api.inputs import MALFORMED_BODY, SafeStr, TaskIdPath, invalid
from app.api.unavailable import DependencyUnavailable
from app.contracts import EXPLORE_JOB_FUNC, ErrorCode, TaskStatus, WebsiteMem
from app.db import repositories
from app.dispatch import DispatchError
from app.urlpolicy import check_url_async, domain_of, network_policy

router = APIRouter(prefix="/v1/sites", tags=["sites"])

MAX_DEPTH, MAX_PAGES, MAX_ELEMENTS = 5, 500, 200  # seed 001 App. B: depth 2, 500 pages, 75


class ExploreCreate(BaseModel):
    """What to explore and how far."""

    # the limits of seed 001 App. B, with smaller defaults

    url: SafeStr = Field(max_length=2048, description="the start page (usually the homepage)")
    max_depth: int = Field(default=2, ge=0, le=MAX_DEPTH, description="clicks from the start page")
    max_pages: int = Field(default=50, ge=1, le=MAX_PAGES)
    max_elements_per_page: int = Field(default=75, ge=1, le=MAX_ELEMENTS)
    timeout_s: float = Field(default=300.0, gt=0, allow_inf_nan=False, description="wall clock")
    allowed_domains: list[SafeStr] = Field(
        default_factory=list,
        max_length=50,
        description="pin the browser to these hosts (as for a task); the site is the URL's host",
    )

    @field_validator("allowed_domains")
    @classmethod
    def _clean(cls, value: list[str]) -> list[str]:
        return [d.strip().lower().rstrip(".") for d in value if d.strip()]


class ExplorationOut(BaseModel):
    id: str
    status: TaskStatus = Field(description="queued, running, succeeded, failed or cancelled")
    url: str
    domain: str
    params: dict[str, Any] = Field(description="the request's limits and allowed_domains")
    progress: dict[str, Any] = Field(description="pages, clicks, skipped, templates so far")
    error: str | None = None
    error_detail: str | None = None
    version: int | None = Field(default=None, description="the WebsiteMem version it wrote")
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None
    result: WebsiteMem | None = Field(default=None, description="the WebsiteMem, once succeeded")


class SiteOut(WebsiteMem):
    exploration_id: str | None = None
    created_at: datetime


def _out(row: Any, mem: Any = None) -> ExplorationOut:
    return ExplorationOut(
        id=row.id,
        status=TaskStatus(row.status),
        url=row.url,
        domain=row.domain,
        params=dict(row.params or {}),
        progress=dict(row.progress or {}),
        error=row.error,
        error_detail=row.error_detail,
        version=row.version,
        created_at=row.created_at,
        started_at=row.started_at,
        finished_at=row.finished_at,
        result=WebsiteMem.model_validate(mem.data) if mem is not None else None,
    )


@router.post(
    "/explore",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=ExplorationOut,
    responses=MALFORMED_BODY,
)
async def start_exploration(
    body: ExploreCreate,
    response: Response,
    session: SessionDep,
    settings: SettingsDep,
    dispatcher: DispatcherDep,
    tenant: WriterDep,
) -> ExplorationOut:
    # seed 001 App. A.2
    """Queue a deterministic exploration of the URL's site: a depth-first
    walk clicking each unseen element once, skipping off-site, login/logout, tel:/mailto:/
    print and destructive elements. Needs `tasks:write`."""
    if body.timeout_s > settings.max_timeout_s:
        invalid(("body", "timeout_s"), f"at most {settings.max_timeout_s}", body.timeout_s)
    reason = await check_url_async(
        body.url, policy=network_policy(settings), allowed_domains=body.allowed_domains
    )
    if reason:
        invalid(("body", "url"), refusal("url", reason), body.url)
    params = body.model_dump(mode="json", exclude={"url"})
    row = await repositories.create_exploration(
        session, tenant_id=tenant, domain=domain_of(body.url), url=body.url, params=params
    )
    await session.commit()
    try:
        await dispatcher.enqueue(row.id, timeout_s=body.timeout_s, job=EXPLORE_JOB_FUNC)
    except DispatchError as exc:
        await repositories.finish_exploration(
            session,
            exploration_id=row.id,
            status=TaskStatus.failed,
            error=ErrorCode.internal.value,
            error_detail=f"could not enqueue: {exc}",
        )
        await session.commit()
        raise DependencyUnavailable("queue", "queue unavailable; explore again") from exc
    response.headers["Location"] = f"/v1/sites/explore/{row.id}"
    return _out(row)


@router.get("/explore/{exploration_id}", response_model=ExplorationOut, responses={404: {}})
async def get_exploration(
    exploration_id: TaskIdPath, session: SessionDep, tenant: LearningsDep
) -> ExplorationOut:
    """An exploration's status and progress; its WebsiteMem once it succeeded. Needs
    `learnings:read`."""
    row = await repositories.get_exploration(
        session, exploration_id=exploration_id, tenant_id=tenant
    )
    if row is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail="exploration not found")
    mem = None
    if row.version is not None:
        mem = await repositories.latest_website_mem(
            session, tenant_id=tenant, domain=row.domain, version=row.version
        )
    return _out(row, mem)


@router.post("/explore/{exploration_id}/cancel", response_model=ExplorationOut, responses={404: {}})
async def cancel_exploration(
    exploration_id: TaskIdPath, session: SessionDep, tenant: WriterDep
) -> ExplorationOut:
    """Cancel a queued or running exploration at once: a queued one never runs, a running
    one stops at its worker's next heartbeat and writes no WebsiteMem. A finished one is
    returned unchanged. Needs `tasks:write`."""
    row = await repositories.cancel_exploration(
        session, exploration_id=exploration_id, tenant_id=tenant
    )
    if row is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail="exploration not found")
    await session.commit()
    return _out(row)


@router.get("/{domain}", response_model=SiteOut, responses={404: {}})
async def get_site(domain: DomainPath, session: SessionDep, tenant: LearningsDep) -> SiteOut:
    """The site's newest WebsiteMem (404 when this tenant never explored it). Needs
    `learnings:read`."""
    mem = await repositories.latest_website_mem(session, tenant_id=tenant, domain=domain)
    if mem is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail="this site was not explored")
    return SiteOut.model_validate(
        {**mem.data, "exploration_id": mem.exploration_id, "created_at": mem.created_at}
    )
