"""Operator guides (issue 21; seed 004 §3.1, seed 003 §9.4).

An operator attaches markdown guides to the tenant: for one site (`domain`) or for every
site (no domain). At the start of a task on that site the Planner takes the guide passages
that share most with the instruction, with what earlier runs learned there, and turns them
into 2-4 imperative directives that anchor its plan (announced in `plan.updated`, trigger
`guidance`). Writing and deleting need the `admin` scope; reading needs `learnings:read`.
Guides are the operator's own words: they reach the model as instructions, unlike page text.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, HTTPException, Path, Query, Response, status
from pydantic import BaseModel, Field

from app.api.deps import AdminDep, LearningsDep, SessionDep
from app.api.inputs import SafeStr
from app.db import repo_guides

router = APIRouter(prefix="/v1/guides", tags=["guides"])

GuideId = Annotated[str, Path(min_length=1, max_length=32, pattern=r"^[0-9a-f]+$")]
DOMAIN = r"^[A-Za-z0-9.-]+$"


class GuideIn(BaseModel):
    domain: SafeStr | None = Field(
        None, max_length=255, pattern=DOMAIN, description="the site it is for; omit: every site"
    )
    title: SafeStr = Field(min_length=1, max_length=200)
    body: SafeStr = Field(min_length=1, max_length=20_000, description="markdown")


class GuideOut(BaseModel):
    id: str
    domain: str | None
    title: str
    body: str
    created_at: datetime
    updated_at: datetime


class GuideList(BaseModel):
    guides: list[GuideOut]


def _out(row: object) -> GuideOut:
    return GuideOut(**{name: getattr(row, name) for name in GuideOut.model_fields})


@router.post("", response_model=GuideOut, status_code=status.HTTP_201_CREATED)
async def add_guide(body: GuideIn, session: SessionDep, tenant: AdminDep) -> GuideOut:
    """Attach a guide for one site or for every site of this tenant. Needs `admin`."""
    row = await repo_guides.add_guide(
        session, tenant_id=tenant, domain=body.domain, title=body.title, body=body.body
    )
    await session.commit()
    return _out(row)


@router.get("", response_model=GuideList)
async def list_guides(
    session: SessionDep,
    tenant: LearningsDep,
    domain: Annotated[str | None, Query(max_length=255, pattern=DOMAIN)] = None,
) -> GuideList:
    """This tenant's guides, oldest first; `domain`: only that site's. Needs
    `learnings:read`."""
    rows = await repo_guides.list_guides(session, tenant_id=tenant, domain=domain)
    return GuideList(guides=[_out(r) for r in rows])


@router.get("/{guide_id}", response_model=GuideOut, responses={404: {}})
async def get_guide(guide_id: GuideId, session: SessionDep, tenant: LearningsDep) -> GuideOut:
    """One guide. Needs `learnings:read`."""
    row = await repo_guides.get_guide(session, tenant_id=tenant, guide_id=guide_id)
    if row is None:
        raise HTTPException(status_code=404, detail="no such guide")
    return _out(row)


@router.delete("/{guide_id}", status_code=status.HTTP_204_NO_CONTENT, responses={404: {}})
async def delete_guide(guide_id: GuideId, session: SessionDep, tenant: AdminDep) -> Response:
    """Remove a guide; later runs no longer see it. Needs `admin`."""
    if not await repo_guides.delete_guide(session, tenant_id=tenant, guide_id=guide_id):
        raise HTTPException(status_code=404, detail="no such guide")
    await session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)
