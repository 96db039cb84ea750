"""Task webhooks: a signed POST of the task once it is terminal, from a durable outbox.

Signing follows Standard Webhooks: headers `webhook-id` (the delivery id, stable across
retries so receivers can deduplicate), `webhook-timestamp` (unix seconds) and
`webhook-signature: v1,<base64 HMAC-SHA256(key, "{id}.{timestamp}.{body}")>`, where the key
is the base64 part of a `whsec_...` secret, or the UTF-8 bytes of any other secret
(WEBAGENT_WEBHOOK_SECRET). The body is `{"type", "timestamp", "data"}`: for `task.finished`
and `task.started` the data is the task; for `approval.requested` it is `{task_id, approval,
links}` (what to decide and where). A task chooses its messages with `webhook_events`.

`deliver_due` runs one round: claim due rows (app/db/repo_webhooks.py), check each target
against the egress URL policy (app/urlpolicy.py, as the browser does) right before sending,
POST without following redirects, record the attempt, and schedule a retry with
exponential backoff or give up after `webhook_max_attempts`. Workers call it for their
task as soon as it ends; `run_deliverer` polls for retries and for tasks ended elsewhere
(cancelled while queued, reaped).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import json
import logging
import time
from collections.abc import AsyncIterator, Callable
from datetime import timedelta
from typing import Any

import httpx
from sqlalchemy.exc import SQLAlchemyError

from app.api.schemas import task_out
from app.contracts import WebhookEvent
from app.db import repo_webhooks, repositories
from app.db.models import WebhookDelivery
from app.db.types import utcnow
from app.settings import Settings
from app.urlpolicy import check_url_async, network_policy

log = logging.getLogger(__name__)

EVENT_TYPE = "task.finished"
LEASE_SLACK_S = 30.0
SECRET_PREFIX = "whsec_"
SessionFactory = Callable[[], Any]


def signing_key(secret: str) -> bytes:
    """Key bytes of a Standard Webhooks secret ("whsec_<base64>") or of a plain string."""
    if secret.startswith(SECRET_PREFIX):
        return base64.b64decode(secret.removeprefix(SECRET_PREFIX))
    return secret.encode()


def sign(secret: str, msg_id: str, timestamp: int, body: bytes) -> str:
    """The `webhook-signature` header value for one message."""
    signed = f"{msg_id}.{timestamp}.".encode() + body
    digest = hmac.new(signing_key(secret), signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode()


def verify(secret: str, headers: Any, body: bytes, *, tolerance_s: float = 300.0) -> bool:
    """What a receiver does: recompute the signature, compare in constant time, and refuse
    timestamps more than `tolerance_s` away (replays)."""
    try:
        msg_id = headers["webhook-id"]
        timestamp = int(headers["webhook-timestamp"])
        offered = headers["webhook-signature"].split()
    except (KeyError, ValueError):
        return False
    if abs(time.time() - timestamp) > tolerance_s:
        return False
    expected = sign(secret, msg_id, timestamp, body)
    return any(hmac.compare_digest(expected, sig) for sig in offered)


def backoff_s(attempts: int, settings: Settings) -> float:
    """Delay before the next try after `attempts` failed ones: base * 2^(n-1), capped."""
    delay = settings.webhook_retry_base_s * (2 ** max(0, attempts - 1))
    return float(min(delay, settings.webhook_retry_max_s))


def payload(task: Any, row: WebhookDelivery | None = None, base_url: str = "") -> bytes:
    """The message body of `row` (task.finished when no row is given); links absolute under
    `base_url` (WEBAGENT_PUBLIC_BASE_URL) when it is set."""
    base = base_url.rstrip("/")
    event_type = row.event_type if row is not None else EVENT_TYPE
    data: dict[str, Any]
    if event_type == WebhookEvent.approval_requested and row is not None:
        data = {
            "task_id": task.id,
            "approval": dict(row.data or {}),
            "links": {
                "run": f"{base}/runs/{task.id}",
                "approvals": f"{base}/v1/tasks/{task.id}/approvals",
            },
        }
    else:
        data = task_out(task).model_dump(mode="json", exclude={"webhook"})
    body = {"type": event_type, "timestamp": utcnow().isoformat(), "data": data}
    return json.dumps(body, separators=(",", ":")).encode()


async def _post(
    client: httpx.AsyncClient, url: str, msg_id: str, body: bytes, settings: Settings
) -> dict[str, Any]:
    """One attempt → its log entry {at, status_code, error}."""
    at = utcnow().isoformat()
    reason = await check_url_async(url, policy=network_policy(settings))
    if reason:
        return {"at": at, "status_code": None, "error": f"blocked by the URL policy: {reason}"}
    timestamp = int(time.time())
    headers = {
        "content-type": "application/json",
        "user-agent": "webagent-webhooks/1",
        "webhook-id": msg_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": sign(
            settings.webhook_secret.get_secret_value(), msg_id, timestamp, body
        ),
    }
    try:
        response = await client.post(url, content=body, headers=headers)
    except httpx.HTTPError as exc:
        return {"at": at, "status_code": None, "error": f"{type(exc).__name__}: {exc}"[:300]}
    error = None if response.is_success else f"HTTP {response.status_code}"
    return {"at": at, "status_code": response.status_code, "error": error}


async def _deliver(
    sessions: SessionFactory, client: httpx.AsyncClient, delivery_id: str, settings: Settings
) -> bool:
    async with sessions() as s:
        row = await s.get(WebhookDelivery, delivery_id)
        task = await repositories.get_task(s, task_id=row.task_id) if row else None
        if row is None or task is None:
            return False
        url, body, attempts = (
            row.url,
            payload(task, row, settings.public_base_url),
            row.attempts or 0,
        )
    attempt = await _post(client, url, delivery_id, body, settings)
    delivered = attempt["error"] is None
    retry_at = None
    if not delivered and attempts + 1 < settings.webhook_max_attempts:
        retry_at = utcnow() + timedelta(seconds=backoff_s(attempts + 1, settings))
    async with sessions() as s:
        await repo_webhooks.record_attempt(
            s,
            delivery_id=delivery_id,
            attempt=attempt,
            delivered=delivered,
            next_attempt_at=retry_at,
        )
        await s.commit()
    if not delivered:
        log.warning("webhook %s to %s failed: %s", delivery_id, url, attempt["error"])
    return delivered


async def deliver_due(
    sessions: SessionFactory,
    settings: Settings,
    *,
    task_id: str | None = None,
    client: httpx.AsyncClient | None = None,
) -> int:
    """One round: send every due delivery (only `task_id`'s when given) → how many landed."""
    lease = settings.webhook_timeout_s + LEASE_SLACK_S
    async with sessions() as s:
        claimed = await repo_webhooks.claim_due(s, lease_s=lease, task_id=task_id)
        await s.commit()
    if not claimed:
        return 0
    owned = client is None
    http = client or httpx.AsyncClient(timeout=settings.webhook_timeout_s, follow_redirects=False)
    try:
        results = [await _deliver(sessions, http, d, settings) for d in claimed]
    finally:
        if owned:
            await http.aclose()
    return sum(results)


async def run_deliverer(sessions: SessionFactory, settings: Settings) -> None:
    """Poll forever (until cancelled); a DB outage skips a round instead of ending the loop."""
    async with httpx.AsyncClient(
        timeout=settings.webhook_timeout_s, follow_redirects=False
    ) as client:
        while True:
            try:
                await deliver_due(sessions, settings, client=client)
            except (SQLAlchemyError, OSError) as exc:
                log.warning("webhook round failed: %s", exc)
            await asyncio.sleep(settings.webhook_poll_interval_s)


@contextlib.asynccontextmanager
async def deliverer(sessions: SessionFactory, settings: Settings) -> AsyncIterator[None]:
    """Run the poller for as long as the context is open (none with poll interval 0)."""
    if settings.webhook_poll_interval_s <= 0:
        yield
        return
    poller = asyncio.create_task(run_deliverer(sessions, settings), name="webagent-webhooks")
    try:
        yield
    finally:
        poller.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await poller
