"""Admitting a task (issue 36): one body checked in one place, in order, and turned into
exactly what `POST /v1/tasks` stores.

    admit(body, tenant, settings=..., session=...) -> Admitted

runs, in this order: the body's shape (`TaskCreate`: types, sizes, secret names, the
output_schema against its meta-schema in app/output_schema.py; FastAPI has done this for the
endpoint, a raw mapping is parsed here), the limits the settings set, the URL policy
(start_url, webhook_url: app/urlpolicy.py), the attachments (decoded, unique names, under the
byte cap), the secrets (sealed: app/secrets.py), the profile (the tenant has it) and the
results (webhook target and events). Every refusal is a 422 at `body.<field>`
(app/api/inputs.py), the same problem details whether admit runs under the endpoint or
alone. It returns the task row, the files and the sealed secrets; the endpoint stores them
and adds nothing, so a new field is checked and stored by adding it here.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError

from app.api.inputs import invalid
from app.api.schemas import TaskCreate
from app.contracts import WebhookEvent
from app.db import repo_profiles
from app.db.repo_attachments import Attachment
from app.secrets import fernet_key, seal
from app.settings import Settings
from app.urlpolicy import check_url_async, network_policy

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


@dataclass(frozen=True)
class Admitted:
    """What an admitted body becomes: `row` is `repositories.create_task`'s arguments (the
    tasks row, defaults applied, secrets sealed); `files` and `allow_scripts` are stored with
    it by `attachments.store`."""

    row: Mapping[str, Any]
    files: tuple[Attachment, ...]
    allow_scripts: bool


def refusal(field: str, reason: str) -> str:
    """The 422 message of a URL the egress policy refuses, naming the setting to change."""
    hint = PRIVATE_HINT if any(w in reason for w in PRIVATE_WORDS) else ""
    return f"{field} is not allowed: {reason}{hint}"


def parsed(body: TaskCreate | Mapping[str, Any]) -> TaskCreate:
    """The body as a TaskCreate; a raw mapping's errors located at body.<field> as FastAPI
    locates them."""
    if isinstance(body, TaskCreate):
        return body
    try:
        return TaskCreate.model_validate(body)
    except ValidationError as exc:
        errors = [{**e, "loc": ("body", *e["loc"])} for e in exc.errors(include_url=False)]
        raise RequestValidationError(errors) from exc


def check_limits(body: TaskCreate, settings: Settings) -> None:
    """max_steps and timeout_s within what the operator allows (not static schema bounds)."""
    if body.max_steps is not None and body.max_steps > settings.max_steps_limit:
        invalid(
            ("body", "max_steps"),
            f"Input should be less than or equal to {settings.max_steps_limit}",
            body.max_steps,
            "less_than_equal",
        )
    if body.timeout_s is not None and body.timeout_s > settings.max_timeout_s:
        invalid(
            ("body", "timeout_s"),
            f"Input should be less than or equal to {settings.max_timeout_s}",
            body.timeout_s,
            "less_than_equal",
        )


async def check_urls(body: TaskCreate, settings: Settings) -> None:
    """The egress policy on start_url (with the task's allowed_domains) and webhook_url."""
    policy = network_policy(settings)
    if body.start_url is not None:
        reason = await check_url_async(
            body.start_url, policy=policy, allowed_domains=body.allowed_domains
        )
        if reason:
            invalid(("body", "start_url"), refusal("start_url", reason), body.start_url)
    if body.webhook_url is not None:
        if not settings.webhook_secret.get_secret_value():
            invalid(
                ("body", "webhook_url"),
                "webhooks are off: set WEBAGENT_WEBHOOK_SECRET to sign them",
                body.webhook_url,
            )
        reason = await check_url_async(body.webhook_url, policy=policy)
        if reason:
            invalid(("body", "webhook_url"), refusal("webhook_url", reason), body.webhook_url)
    elif body.webhook_events:
        invalid(
            ("body", "webhook_events"),
            "webhook_events needs a webhook_url to send them to",
            [e.value for e in body.webhook_events],
        )


def checked_files(body: TaskCreate, settings: Settings) -> tuple[Attachment, ...]:
    """The decoded files; a 422 at body.attachments for duplicate names or too many bytes."""
    files = tuple(Attachment(a.name, a.media_type, a.content()) for a in body.attachments)
    names = [f.name for f in files]
    if len(set(names)) != len(names):
        invalid(("body", "attachments"), "attachment names must be unique", names, "value_error")
    total = sum(len(f.data) for f in files)
    if total > settings.attachments_max_bytes:
        invalid(
            ("body", "attachments"),
            f"attachments are {total} bytes; the limit is {settings.attachments_max_bytes}"
            " (WEBAGENT_ATTACHMENTS_MAX_BYTES)",
            names,
            "too_long",
        )
    return files


def sealed_secrets(body: TaskCreate, settings: Settings) -> str | None:
    """The task's secrets as one Fernet token (app/secrets.py); None without secrets."""
    if not body.secrets:
        return None
    key = fernet_key(settings.secrets_key.get_secret_value(), settings.data_dir)
    return seal(body.secret_entries(), key)


async def check_profile(body: TaskCreate, session: Any, tenant: str) -> None:
    """A named browser profile must be one the tenant has."""
    if body.profile is None:
        return
    found = await repo_profiles.get_profile(session, tenant_id=tenant, name=body.profile)
    if found is None:
        invalid(
            ("body", "profile"),
            f"no browser profile named {body.profile!r}; create it with POST /v1/profiles",
            body.profile,
        )


def request_hash(body: TaskCreate) -> str:
    """Stable digest of the request (defaults applied), so a replayed Idempotency-Key can be
    compared."""
    # secret values stay out of the stored digest (a bare sha256 of a password): names only
    request = {**body.model_dump(mode="json", exclude={"secrets"}), "secrets": sorted(body.secrets)}
    canonical = json.dumps(request, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


def approval_wait(body: TaskCreate, settings: Settings) -> float:
    """How long an approval of the task waits (issue 31 item 5), stored with the task: its
    own value; the full wait when a webhook receives approval.requested; else the short
    unattended wait (nobody is set to answer, and an API run must not hang 15 minutes)."""
    if body.approval_timeout_s is not None:
        return body.approval_timeout_s
    events = body.webhook_events or ()
    if body.webhook_url and WebhookEvent.approval_requested in events:
        return settings.approval_timeout_s
    return settings.approval_unattended_timeout_s


def task_row(body: TaskCreate, tenant: str, settings: Settings, sealed: str | None) -> dict:
    """The tasks row of a checked body: defaults applied (before hashing: a replay that spells
    them out is the same request)."""
    body = body.model_copy(
        update={
            "max_steps": body.max_steps or settings.default_max_steps,
            "timeout_s": body.timeout_s or settings.default_timeout_s,
        }
    )
    events = body.webhook_events
    return {
        "tenant_id": tenant,
        "instruction": body.instruction,
        "start_url": body.start_url,
        "max_steps": body.max_steps,
        "timeout_s": body.timeout_s,
        "allowed_domains": body.allowed_domains,
        "task_policy": {
            "task_profile": body.task_profile.value,
            "forbid_login": body.forbid_login,
            "private_regions": body.private_regions,
            "reuse_routes": body.reuse_routes,
            "time_zone": body.time_zone or settings.default_time_zone,
            "record_trace": body.record_trace or settings.record_trace,
            "approval_timeout_s": approval_wait(body, settings),
        },
        "metadata": body.metadata,
        "request_hash": request_hash(body),
        "secret_names": tuple(body.secrets),
        "secrets_sealed": sealed,
        "approval_policy": body.approval_policy,
        "extra": {
            "output_schema": body.output_schema,
            "webhook_url": body.webhook_url,
            "webhook_events": (
                sorted(set(events), key=list(WebhookEvent).index) if events else None
            ),
            "profile": body.profile,
            "save_profile": body.save_profile,
            "max_tokens": body.max_tokens,
            "max_cost_usd": body.max_cost_usd,
        },
    }


async def admit(
    body: TaskCreate | Mapping[str, Any], tenant: str, *, settings: Settings, session: Any
) -> Admitted:
    """Every check of a task body, in order, then what is stored; the first refusal raises
    its 422 (RequestValidationError)."""
    task = parsed(body)
    check_limits(task, settings)
    await check_urls(task, settings)
    files = checked_files(task, settings)
    sealed = sealed_secrets(task, settings)
    await check_profile(task, session, tenant)
    return Admitted(
        row=task_row(task, tenant, settings, sealed), files=files, allow_scripts=task.allow_scripts
    )
