"""Browser profiles: log in once, reuse the session in later tasks.

A profile is a named, tenant-scoped browser storage state (cookies, localStorage). A task
with `profile` starts from it; with `save_profile: true` the worker writes the context's
state back after the run. The state is sealed with Fernet at rest (app/secrets.py key) and
never returned by the API: responses say only whether one was saved, and when.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Response, status

from app.api.deps import SessionDep, TenantDep, WriterDep
from app.api.schemas import NAME_PATTERN, ProfileCreate, ProfileList, ProfileOut
from app.db import repo_profiles

router = APIRouter(prefix="/v1/profiles", tags=["profiles"])

ProfileName = Annotated[str, Path(description="profile name", pattern=NAME_PATTERN)]


def profile_out(row: Any) -> ProfileOut:
    return ProfileOut(
        name=row.name,
        has_state=bool(row.storage_sealed),
        saved_at=row.saved_at,
        created_at=row.created_at,
    )


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    response_model=ProfileOut,
    responses={409: {"description": "a profile of that name exists"}},
)
async def create_profile(body: ProfileCreate, session: SessionDep, tenant: WriterDep) -> ProfileOut:
    """Create an empty named profile; a task with `save_profile: true` fills it."""
    row = await repo_profiles.create_profile(session, tenant_id=tenant, name=body.name)
    if row is None:
        raise HTTPException(status.HTTP_409_CONFLICT, detail=f"profile {body.name!r} exists")
    await session.commit()
    return profile_out(row)


@router.get("", response_model=ProfileList)
async def list_profiles(session: SessionDep, tenant: TenantDep) -> ProfileList:
    """The caller's profiles by name (never their contents)."""
    rows = await repo_profiles.list_profiles(session, tenant_id=tenant)
    return ProfileList(items=[profile_out(r) for r in rows])


@router.get(
    "/{name}", response_model=ProfileOut, responses={404: {"description": "no such profile"}}
)
async def get_profile(name: ProfileName, session: SessionDep, tenant: TenantDep) -> ProfileOut:
    """One profile's metadata."""
    row = await repo_profiles.get_profile(session, tenant_id=tenant, name=name)
    if row is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"no profile named {name!r}")
    return profile_out(row)


@router.delete(
    "/{name}",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    responses={404: {"description": "no such profile"}},
)
async def delete_profile(name: ProfileName, session: SessionDep, tenant: WriterDep) -> Response:
    """Delete a profile and its stored cookies for good."""
    if not await repo_profiles.delete_profile(session, tenant_id=tenant, name=name):
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"no profile named {name!r}")
    await session.commit()
    return Response(status_code=status.HTTP_204_NO_CONTENT)
