"""DELETE /v1/tasks/{id}: a task and all its data, for good (issue 25, retention).

A live task is cancelled in the same transaction that deletes it: its worker sees the row
gone as a cancel (`is_cancel_requested`) at its next check and stops; a queued one is never
claimed. Per-domain learnings are not task data and stay (app/db/repo_retention.py).
"""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Response, status

from app import metrics
from app.api.deps import SessionDep, StoreDep, WriterDep
from app.api.inputs import TaskIdPath
from app.contracts import TaskStatus
from app.db import repositories
from app.db.repo_retention import delete_tasks
from app.store.records import delete_task_blobs

router = APIRouter(prefix="/v1/tasks", tags=["tasks"])


@router.delete(
    "/{task_id}",
    status_code=status.HTTP_204_NO_CONTENT,
    response_class=Response,
    responses={404: {"description": "no such task"}},
)
async def delete_task(
    task_id: TaskIdPath, session: SessionDep, tenant: WriterDep, store: StoreDep
) -> Response:
    """Delete the task with its events, artifacts, attachments, ledger and approvals
    (cancelling it first if it is still queued or running); learnings stay."""
    task = await repositories.get_task(session, task_id=task_id, tenant_id=tenant)
    if task is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"task {task_id} not found")
    was_queued = task.status == TaskStatus.queued.value
    if not TaskStatus(task.status).terminal:
        await repositories.request_cancel(session, task_id=task_id, tenant_id=tenant)
    deleted = await delete_tasks(session, [task_id])
    await session.commit()
    await delete_task_blobs(store, task_id)  # the bytes go once the rows are gone
    if was_queued:  # a running task's worker counts its own end
        metrics.task_finished(TaskStatus.cancelled.value, None)
    metrics.data_deleted("request", deleted.rows, deleted.size_bytes)
    return Response(status_code=status.HTTP_204_NO_CONTENT)
