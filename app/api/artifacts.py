"""Task artifacts: the files a run kept, listed and fetched by id.

`GET /v1/tasks/{id}/artifacts` lists them (step screenshots, approval screenshots, the page
at each takeover's hand-back (kind "takeover", numbered 1, 2, ... in `step`), and the
files the page produced: downloads and printed PDFs, kind "download", numbered 1, 2, ... in
`step`); `GET /v1/tasks/{id}/artifacts/{artifact_id}` returns the bytes. A download is page
content: it is served as an attachment that the browser neither renders nor sniffs. Another
tenant's task is a 404 like a missing one.
"""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, HTTPException, Path, Response, status
from pydantic import BaseModel
from sqlalchemy import select

from app.api.blobs import artifact_response
from app.api.deps import SessionDep, SettingsDep, StoreDep, TenantDep
from app.api.inputs import TASK_ID_PATTERN, TaskIdPath
from app.api.tasks import load_task
from app.db.models import Artifact

router = APIRouter(prefix="/v1/tasks", tags=["artifacts"])

ArtifactIdPath = Annotated[str, Path(pattern=TASK_ID_PATTERN)]


class ArtifactOut(BaseModel):
    id: str
    kind: str  # "screenshot", "approval", "download", "trace", "takeover" (page at hand-back)
    name: str | None  # the file name of a download; None for screenshots
    content_type: str
    size: int  # bytes
    step: int  # the agent step (screenshots) or the download's number in the task


@router.get("/{task_id}/artifacts", response_model=list[ArtifactOut], responses={404: {}})
async def list_artifacts(
    task_id: TaskIdPath, session: SessionDep, tenant: TenantDep
) -> list[ArtifactOut]:
    """The task's artifacts without their bytes, downloads with name and size."""
    await load_task(session, task_id, tenant)
    stmt = (
        select(
            Artifact.id,
            Artifact.kind,
            Artifact.name,
            Artifact.content_type,
            Artifact.size,
            Artifact.step,
        )
        .where(Artifact.task_id == task_id, Artifact.tenant_id == tenant)
        .order_by(Artifact.kind, Artifact.step)
    )
    rows = (await session.execute(stmt)).all()
    return [
        ArtifactOut(id=i, kind=k, name=n, content_type=c, size=int(size or 0), step=step)
        for i, k, n, c, size, step in rows
    ]


@router.get(
    "/{task_id}/artifacts/{artifact_id}",
    response_class=Response,
    responses={200: {"content": {"application/octet-stream": {}}}, 307: {}, 404: {}},
)
async def get_artifact(
    task_id: TaskIdPath,
    artifact_id: ArtifactIdPath,
    session: SessionDep,
    tenant: TenantDep,
    store: StoreDep,
    settings: SettingsDep,
) -> Response:
    """The artifact's bytes with its content type; a download comes as an attachment. With
    WEBAGENT_ARTIFACT_PRESIGN_S set and an S3 store: a 307 to a short-lived signed URL."""
    await load_task(session, task_id, tenant)
    stmt = select(Artifact).where(
        Artifact.id == artifact_id, Artifact.task_id == task_id, Artifact.tenant_id == tenant
    )
    artifact = (await session.execute(stmt)).scalar_one_or_none()
    if artifact is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"no artifact {artifact_id}")
    headers = {
        "Cache-Control": "private, max-age=86400",
        "X-Content-Type-Options": "nosniff",
        "Content-Security-Policy": "sandbox",
    }
    if artifact.name:
        filename = quote(artifact.name, safe="")
        headers["Content-Disposition"] = f"attachment; filename*=UTF-8''{filename}"
    return await artifact_response(
        session,
        store,
        artifact,
        presign_s=settings.artifact_presign_s,
        headers=headers,
        default_type="application/octet-stream",
    )
