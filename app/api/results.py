"""What a task delivers besides its answer: the webhook outbox row and the browser profile.

`validate` refuses, before anything is stored, a webhook target the egress policy blocks
(or any webhook while WEBAGENT_WEBHOOK_SECRET is unset) and a profile the tenant does not
have; `columns` are the Task columns the request sets; `queue_webhook` writes the outbox
row in the task's own transaction; `task_outs` adds the webhook's delivery state to
response bodies; the router adds `POST /v1/tasks/{id}/webhook/retry`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from fastapi import APIRouter, HTTPException, status

from app.api.deps import SessionDep, WriterDep
from app.api.inputs import TaskIdPath, invalid
from app.api.schemas import TaskCreate, TaskOut, WebhookAttempt, WebhookOut, task_out
from app.contracts import TaskStatus, WebhookEvent
from app.db import repo_profiles, repo_webhooks, repositories
from app.db.models import WebhookDelivery
from app.settings import Settings
from app.urlpolicy import check_url_async, network_policy

router = APIRouter(prefix="/v1/tasks", tags=["webhooks"])

PRIVATE_HINT = (
    "; to reach private or loopback hosts set WEBAGENT_ALLOW_PRIVATE_NETWORKS=true or list the "
    "host in WEBAGENT_ALLOWED_PRIVATE_HOSTS"
)
PRIVATE_WORDS = (
    "loopback",
    "private",
    "link-local",
    "non-global",
    "local host name",
    "unspecified",
)


def refusal(field: str, reason: str) -> str:
    """The 422 message of a URL the egress policy refuses, naming the setting to change."""
    hint = PRIVATE_HINT if any(w in reason for w in PRIVATE_WORDS) else ""
    return f"{field} is not allowed: {reason}{hint}"


async def validate(body: TaskCreate, settings: Settings, session: Any, tenant: str) -> None:
    """422s naming the field (and the setting to fix) for webhook_url and profile."""
    if body.webhook_url is not None:
        if not settings.webhook_secret.get_secret_value():
            invalid(
                ("body", "webhook_url"),
                "webhooks are off: set WEBAGENT_WEBHOOK_SECRET to sign them",
                body.webhook_url,
            )
        reason = await check_url_async(body.webhook_url, policy=network_policy(settings))
        if reason:
            invalid(("body", "webhook_url"), refusal("webhook_url", reason), body.webhook_url)
    elif body.webhook_events:
        invalid(
            ("body", "webhook_events"),
            "webhook_events needs a webhook_url to send them to",
            [e.value for e in body.webhook_events],
        )
    if body.profile is not None:
        found = await repo_profiles.get_profile(session, tenant_id=tenant, name=body.profile)
        if found is None:
            invalid(
                ("body", "profile"),
                f"no browser profile named {body.profile!r}; create it with POST /v1/profiles",
                body.profile,
            )


def columns(body: TaskCreate) -> dict[str, Any]:
    """The Task columns of this module's request fields."""
    return {
        "output_schema": body.output_schema,
        "webhook_url": body.webhook_url,
        "webhook_events": (
            sorted(set(body.webhook_events), key=list(WebhookEvent).index)
            if body.webhook_events
            else None
        ),
        "profile": body.profile,
        "save_profile": body.save_profile,
    }


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


async def task_outs(session: Any, tasks: Sequence[Any]) -> list[TaskOut]:
    """Response bodies of `tasks`, with the webhook delivery state where there is one."""
    rows = await repo_webhooks.deliveries_for(
        session, task_ids=[t.id for t in tasks if t.webhook_url]
    )
    outs = []
    for task in tasks:
        out = task_out(task)
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
