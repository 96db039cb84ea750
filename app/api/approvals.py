"""Approval routes: what a paused task waits for, and a person's answer.

`GET /v1/tasks/{id}/approvals` lists a task's requests (newest state, oldest first);
`POST /v1/tasks/{id}/approvals/{approval_id}` with `{"decision": "approve" | "deny"}`
decides a pending one exactly once (409 afterwards, also once it has expired). The worker
that asked notices the decision, resumes the task and emits `approval.resolved`.
Another tenant's task is a 404 like a missing one.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Path, Response, status
from pydantic import BaseModel, ConfigDict

from app.api.blobs import artifact_response
from app.api.deps import PrincipalDep, SessionDep, SettingsDep, StoreDep, TenantDep, WriterDep
from app.api.inputs import MALFORMED_BODY, TASK_ID_PATTERN, TaskIdPath
from app.api.tasks import load_task
from app.auth import Principal
from app.contracts import ApprovalStatus, TaskStatus
from app.db import repositories
from app.db.repo_approvals import decide_approval, get_approval, is_overdue, list_approvals

router = APIRouter(prefix="/v1/tasks", tags=["approvals"])

APPROVAL_SCREENSHOT = "approval"  # artifact kind of the page a request was made on
ApprovalIdPath = Annotated[str, Path(pattern=TASK_ID_PATTERN)]


class ApprovalDecisionIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    decision: Literal["approve", "deny"]


class ApprovalOut(BaseModel):
    id: str
    task_id: str
    kind: str  # sensitive_action | challenge | login
    status: str  # pending | approved | denied | expired
    reason: str
    url: str | None
    element: str | None
    screenshot_url: str | None
    details: dict[str, Any]
    created_at: datetime
    expires_at: datetime
    decided_at: datetime | None
    decided_by: str | None


class ApprovalList(BaseModel):
    task_id: str
    items: list[ApprovalOut]


def approval_out(row: Any, *, task_ended: bool = False) -> ApprovalOut:
    """Row -> body; a pending request past its expiry, or of a task that has ended (its
    worker is gone), reads as expired: nothing is waiting for it any more."""
    details = dict(row.details or {})
    shot = details.get("screenshot")
    stale = row.status == ApprovalStatus.pending and (task_ended or is_overdue(row))
    return ApprovalOut(
        id=row.id,
        task_id=row.task_id,
        kind=row.kind,
        status=ApprovalStatus.expired.value if stale else row.status,
        reason=row.reason,
        url=details.get("url"),
        element=details.get("element"),
        screenshot_url=(
            f"/v1/tasks/{row.task_id}/approvals/{row.id}/screenshot" if shot is not None else None
        ),
        details=details,
        created_at=row.created_at,
        expires_at=row.expires_at,
        decided_at=row.decided_at,
        decided_by=row.decided_by,
    )


async def _load(session: Any, task_id: str, approval_id: str, tenant: str) -> tuple[Any, bool]:
    """(the approval row, whether its task has ended) or 404."""
    task = await load_task(session, task_id, tenant)
    row = await get_approval(session, approval_id=approval_id, task_id=task_id)
    if row is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"approval {approval_id} not found")
    return row, TaskStatus(task.status).terminal


@router.get("/{task_id}/approvals", response_model=ApprovalList, responses={404: {}})
async def get_approvals(
    task_id: TaskIdPath, session: SessionDep, tenant: TenantDep
) -> ApprovalList:
    task = await load_task(session, task_id, tenant)
    ended = TaskStatus(task.status).terminal
    rows = await list_approvals(session, task_id=task_id)
    return ApprovalList(task_id=task_id, items=[approval_out(r, task_ended=ended) for r in rows])


def decider(principal: Principal) -> str:
    """Who decided, for the record: the API key's id, or the local operator (keys off)."""
    return f"key:{principal.key_id}" if principal.key_id else "local"


@router.post(
    "/{task_id}/approvals/{approval_id}",
    response_model=ApprovalOut,
    responses={
        **MALFORMED_BODY,
        404: {},
        409: {"description": "the approval was already decided or has expired"},
    },
)
async def decide(
    task_id: TaskIdPath,
    approval_id: ApprovalIdPath,
    body: ApprovalDecisionIn,
    session: SessionDep,
    tenant: WriterDep,
    principal: PrincipalDep,
) -> ApprovalOut:
    """Approve or deny a pending request; the paused task resumes within a moment."""
    row, ended = await _load(session, task_id, approval_id, tenant)
    if ended:  # its worker is gone: an approval now would look as if it had been acted on
        shown = approval_out(row, task_ended=True).status
        raise HTTPException(
            status.HTTP_409_CONFLICT, detail=f"approval is {shown}: the task has finished"
        )
    final = ApprovalStatus.approved if body.decision == "approve" else ApprovalStatus.denied
    decided = await decide_approval(
        session, approval_id=approval_id, status=final, decided_by=decider(principal)
    )
    await session.commit()
    row, ended = await _load(session, task_id, approval_id, tenant)
    if not decided:
        shown = approval_out(row, task_ended=ended).status
        raise HTTPException(status.HTTP_409_CONFLICT, detail=f"approval is already {shown}")
    return approval_out(row, task_ended=ended)


@router.get(
    "/{task_id}/approvals/{approval_id}/screenshot",
    response_class=Response,
    responses={200: {"content": {"image/jpeg": {}}}, 307: {}, 404: {}},
)
async def approval_screenshot(
    task_id: TaskIdPath,
    approval_id: ApprovalIdPath,
    session: SessionDep,
    tenant: TenantDep,
    store: StoreDep,
    settings: SettingsDep,
) -> Response:
    """The page as it was when the task asked (what the person is deciding about)."""
    row, _ = await _load(session, task_id, approval_id, tenant)
    step = (row.details or {}).get("screenshot_step")
    artifact = None
    if isinstance(step, int):
        artifact = await repositories.get_artifact(
            session, task_id=task_id, kind=APPROVAL_SCREENSHOT, step=step
        )
    if artifact is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail="no screenshot for this approval")
    return await artifact_response(
        session,
        store,
        artifact,
        presign_s=settings.artifact_presign_s,
        headers={"Cache-Control": "private, max-age=86400"},
        default_type="image/jpeg",
    )
