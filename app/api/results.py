"""What a task delivers besides its answer: the webhook outbox row and the browser profile.

Admission (app/api/admission.py) checks a task's webhook target and profile and sets their
columns; `queue_webhook` writes the outbox row in the task's own transaction; `task_outs`
adds the webhook's delivery state to response bodies; the router adds
`POST /v1/tasks/{id}/webhook/retry`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter, HTTPException, status

from app.api.deps import SessionDep, WriterDep
from app.api.inputs import TaskIdPath
from app.api.schemas import TaskOut, WebhookAttempt, WebhookOut, task_out
from app.contracts import TaskStatus
from app.db import repo_webhooks, repositories
from app.db.models import WebhookDelivery
from app.pricing import Prices, run_costs

router = APIRouter(prefix="/v1/tasks", tags=["webhooks"])


async def queue_webhook(session: Any, task: Any) -> None:
    """The task.finished outbox row of a task with a webhook_url (same transaction as the
    task); the other events are queued when they happen (app/db/repo_webhooks.queue_event)."""
    if task.webhook_url and repo_webhooks.FINISHED in repo_webhooks.events_of(task):
        await repo_webhooks.create_delivery(
            session, task_id=task.id, tenant_id=task.tenant_id, url=task.webhook_url
        )


def webhook_out(row: WebhookDelivery) -> WebhookOut:
    return WebhookOut(
        state=row.state,  # type: ignore[arg-type]
        attempts=row.attempts or 0,
        next_attempt_at=row.next_attempt_at,
        delivered_at=row.delivered_at,
        log=[WebhookAttempt.model_validate(a) for a in row.attempts_log or []],
    )


async def task_outs(session: Any, tasks: Sequence[Any], prices: Prices) -> list[TaskOut]:
    """Response bodies of `tasks`, with the webhook delivery state where there is one and
    the cost of their model calls where `prices` (WEBAGENT_LLM_PRICES) price them all."""
    rows = await repo_webhooks.deliveries_for(
        session, task_ids=[t.id for t in tasks if t.webhook_url]
    )
    costs = await run_costs(session, task_ids=[t.id for t in tasks], prices=prices)
    outs = []
    for task in tasks:
        out = task_out(task)
        out.cost_usd = costs.get(task.id) if prices else None
        if task.id in rows:
            out.webhook = webhook_out(rows[task.id])
        outs.append(out)
    return outs


@router.post(
    "/{task_id}/webhook/retry",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=WebhookOut,
    responses={
        404: {"description": "no such task, or the task has no webhook_url"},
        409: {"description": "the task has not finished yet"},
    },
)
async def retry_webhook(task_id: TaskIdPath, session: SessionDep, tenant: WriterDep) -> WebhookOut:
    """Send the task's webhook again now (also a delivered one), with a fresh series of
    retries; the attempt log keeps every earlier attempt."""
    task = await repositories.get_task(session, task_id=task_id, tenant_id=tenant)
    row = await repo_webhooks.get_delivery(session, task_id=task_id) if task else None
    if task is None or row is None:
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail=f"task {task_id} has no webhook")
    if not TaskStatus(task.status).terminal:
        raise HTTPException(status.HTTP_409_CONFLICT, detail=f"task is still {task.status}")
    row = await repo_webhooks.reset_delivery(session, task_id=task_id)
    await session.commit()
    assert row is not None
    return webhook_out(row)
