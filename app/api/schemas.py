"""Request and response bodies of the public HTTP API (the OpenAPI schema at /docs)."""

from __future__ import annotations

import base64
import binascii
import json
import re
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
    model_validator,
)

from app.api.inputs import INT32_MAX, SafeStr, safe_json
from app.contracts import TaskProfile, TaskResult, TaskStatus, Usage, WebhookEvent
from app.output_schema import output_schema_problem
from app.secrets import NAME as SECRET_NAME
from app.secrets import SecretEntry
from app.settings import iana_zone
from app.urlpolicy import domain_of

MAX_METADATA_BYTES = 16 * 1024
MAX_PRIVATE_REGIONS = 20
UNSAFE_SELECTOR = re.compile(r"[{};\\]|/\*|<")  # as workers/browser/runtime/regions.py refuses
MAX_ALLOWED_DOMAINS = 100
MAX_SECRETS = 20
MAX_OUTPUT_SCHEMA_BYTES = 16 * 1024
PROFILE_NAME = SECRET_NAME  # same alphabet as secret names


class SecretIn(BaseModel):
    """A secret scoped to domains (host names; subdomains included)."""

    model_config = ConfigDict(extra="forbid")

    value: SafeStr = Field(min_length=1, max_length=1024)
    domains: list[SafeStr] = Field(default_factory=list, max_length=MAX_ALLOWED_DOMAINS)


NOT_IN_HOST = frozenset(" /\\?#@")
MAX_ATTACHMENTS = 10
_MEDIA_TYPE = re.compile(r"^[\w.+-]+/[\w.+-]+$")


class AttachmentIn(BaseModel):
    """A file uploaded with the task: the only files the agent may upload to a page. The
    total decoded size is capped by WEBAGENT_ATTACHMENTS_MAX_BYTES."""

    # seed 001 App. A.5: upload_file uses only these

    model_config = ConfigDict(extra="forbid")

    name: SafeStr = Field(min_length=1, max_length=255, description="file name the model uses")
    content_base64: str = Field(min_length=0, description="the file's bytes, base64")
    media_type: SafeStr = Field(default="application/octet-stream", max_length=128)

    @field_validator("name")
    @classmethod
    def _plain_name(cls, value: str) -> str:
        if value in (".", "..") or set(value) & set("/\\\x00") or value != value.strip():
            raise ValueError("attachment names are plain file names (no path separators)")
        return value

    @field_validator("media_type")
    @classmethod
    def _media_type(cls, value: str) -> str:
        if not _MEDIA_TYPE.match(value):
            raise ValueError("media_type must look like type/subtype")
        return value

    @field_validator("content_base64")
    @classmethod
    def _base64(cls, value: str) -> str:
        try:
            base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ValueError("content_base64 is not valid base64") from exc
        return value

    def content(self) -> bytes:
        return base64.b64decode(self.content_base64, validate=True)


class TaskCreate(BaseModel):
    """POST /v1/tasks. Upper limits of max_steps/timeout_s come from settings (route)."""

    model_config = ConfigDict(extra="forbid")

    instruction: SafeStr = Field(
        min_length=1,
        max_length=4000,
        description="what the agent should do, in plain words",
        examples=["Find the price of the cheapest 2-person tent and answer in EUR"],
    )
    start_url: SafeStr | None = Field(
        default=None,
        max_length=2048,
        description="the page the browser opens first (without it, the agent may search)",
        examples=["https://shop.example.com/"],
    )
    max_steps: int | None = Field(
        default=None,
        ge=1,
        le=INT32_MAX,
        description="at most this many agent steps (default WEBAGENT_DEFAULT_MAX_STEPS)",
        examples=[25],
    )
    timeout_s: float | None = Field(
        default=None,
        gt=0,
        allow_inf_nan=False,
        description="the task ends timed_out after this many seconds",
        examples=[300],
    )
    task_profile: TaskProfile = Field(  # seed 003 §9.3 specialised agents
        default=TaskProfile.general,
        description="which tools the agent may use: assistant (read-only), research (navigate, "
        "click, type into search fields), data_entry (forms, pinned to allowed_domains or the "
        "start URL's host), general (every tool)",
    )
    forbid_login: bool = Field(
        default=False, description="a login form (password field) on the page fails the task"
    )
    time_zone: Annotated[SafeStr, AfterValidator(iana_zone)] | None = Field(
        default=None,
        max_length=64,
        description="the IANA time zone the task runs in (the date and time the model is told),"
        " e.g. Europe/Berlin; default: the service's WEBAGENT_DEFAULT_TIME_ZONE",
        examples=["Europe/Berlin"],
    )
    record_trace: bool = Field(
        default=False,
        description='keep a Playwright trace of the run as artifact kind "trace" (trace.zip,'
        " open with `playwright show-trace`); typed secrets stay out, and with private_regions"
        " the trace has no screenshots. WEBAGENT_RECORD_TRACE turns it on for every task",
    )
    reuse_routes: bool = Field(
        default=True,
        description="replay a proven route of the start page's site for the same intent "
        "without model calls; false: the model decides every step",
    )
    private_regions: list[SafeStr] = Field(
        default_factory=list,
        max_length=MAX_PRIVATE_REGIONS,
        description=(
            "page regions the model never sees (text or screenshot): CSS selectors, or"
            " landmark:<role> / landmark:<accessible label>"
        ),
    )
    allowed_domains: list[SafeStr] = Field(
        default_factory=list, max_length=MAX_ALLOWED_DOMAINS, validate_default=True
    )
    metadata: dict[str, Any] = Field(default_factory=dict)
    attachments: list[AttachmentIn] = Field(
        default_factory=list,
        max_length=MAX_ATTACHMENTS,
        description="files upload_file may put into the page's file inputs, by name",
    )
    allow_scripts: bool = Field(
        default=False, description="offer the model evaluate_script (JavaScript in the page)"
    )
    max_tokens: int | None = Field(
        default=None,
        ge=1,
        le=INT32_MAX,
        description="model tokens (input + output, all roles) the task may use; reaching it "
        "ends the task failed/budget_exceeded",
    )
    max_cost_usd: float | None = Field(
        default=None,
        gt=0,
        allow_inf_nan=False,
        description="model cost the task may spend, priced by WEBAGENT_LLM_PRICES; reaching "
        "it ends the task failed/budget_exceeded",
    )
    approval_timeout_s: float | None = Field(
        default=None,
        gt=0,
        le=86400,
        allow_inf_nan=False,
        description="how long an approval waits for a person before the action counts as "
        "refused; default: WEBAGENT_APPROVAL_TIMEOUT_S (900 s) when a webhook receives "
        "approval.requested, else WEBAGENT_APPROVAL_UNATTENDED_TIMEOUT_S (60 s): nobody is "
        "set to answer. The viewer's form and `webagent run` at a terminal send the full wait",
    )
    approval_policy: Literal["sensitive", "none"] = Field(
        default="sensitive",
        description="sensitive: the task pauses in awaiting_approval before a risky action "
        "(delete, pay, send, password entry, downloads, cross-site form posts) and on a "
        "challenge page, until POST /v1/tasks/{id}/approvals/{approval_id}; none: never pauses",
    )
    secrets: dict[SafeStr, SafeStr | SecretIn] = Field(
        default_factory=dict,
        max_length=MAX_SECRETS,
        description="name -> value, or name -> {value, domains}. The model sees only "
        "`<secret:name>`; values are sealed at rest and never returned.",
    )

    output_schema: dict[str, Any] | None = Field(
        default=None,
        description="JSON Schema the final answer must satisfy; the validated JSON is returned "
        "as result.data (one repair round with the model, then error output_invalid)",
        examples=[{"type": "object", "properties": {"price": {"type": "number"}}}],
    )
    webhook_url: SafeStr | None = Field(
        default=None,
        max_length=2048,
        description="POSTed the task (signed, Standard Webhooks headers) once it is terminal; "
        "checked by the same egress URL policy as the browser",
        examples=["https://hooks.example.com/webagent"],
    )
    webhook_events: list[WebhookEvent] | None = Field(
        default=None,
        max_length=len(WebhookEvent),
        description="which messages webhook_url receives: task.started, approval.requested "
        "(a person must approve or deny), task.finished (the default)",
        examples=[["approval.requested", "task.finished"]],
    )
    profile: SafeStr | None = Field(
        default=None,
        max_length=64,
        description="named browser profile (POST /v1/profiles) whose cookies and localStorage "
        "the run starts from",
    )
    save_profile: bool = Field(
        default=False, description="write the run's cookies and localStorage back to `profile`"
    )

    @field_validator("output_schema")
    @classmethod
    def _check_output_schema(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is None:
            return None
        safe_json(value)
        if len(json.dumps(value, separators=(",", ":")).encode()) > MAX_OUTPUT_SCHEMA_BYTES:
            raise ValueError(f"output_schema is larger than {MAX_OUTPUT_SCHEMA_BYTES} bytes")
        problem = output_schema_problem(value)
        if problem:
            raise ValueError(f"output_schema {problem}")  # "<JSON pointer>: why"
        return value

    @field_validator("profile")
    @classmethod
    def _check_profile(cls, value: str | None) -> str | None:
        if value is not None and not PROFILE_NAME.match(value):
            raise ValueError("profile names are 1-64 of A-Z a-z 0-9 _ . -")
        return value

    @model_validator(mode="after")
    def _save_needs_profile(self) -> TaskCreate:
        if self.save_profile and not self.profile:
            raise ValueError("save_profile needs a profile name")
        return self

    @field_validator("secrets")
    @classmethod
    def _clean_secrets(cls, value: dict[str, str | SecretIn]) -> dict[str, str | SecretIn]:
        for name, entry in value.items():
            if not SECRET_NAME.match(name):
                raise ValueError("secret names are 1-64 of A-Z a-z 0-9 _ . -")
            text = entry if isinstance(entry, str) else entry.value
            if not text or len(text) > 1024:
                raise ValueError(f"secret {name}: value must be 1-1024 characters")
        return value

    def secret_entries(self) -> dict[str, SecretEntry]:
        """The secrets as sealed: domains cleaned like allowed_domains."""
        out = {}
        for name, entry in self.secrets.items():
            if isinstance(entry, str):
                out[name] = SecretEntry(value=entry)
            else:
                domains = self._clean_domains(entry.domains)
                out[name] = SecretEntry(value=entry.value, domains=tuple(domains))
        return out

    @field_validator("instruction")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("instruction must not be blank")
        return value

    @field_validator("private_regions")
    @classmethod
    def _clean_regions(cls, value: list[str]) -> list[str]:
        cleaned = [s.strip() for s in value]
        if any(not s or len(s) > 300 for s in cleaned):
            raise ValueError("private_regions entries are CSS selectors of 1-300 characters")
        if any(UNSAFE_SELECTOR.search(s) for s in cleaned):
            raise ValueError("private_regions selectors may not contain { } ; \\ /* or <")
        return cleaned

    @field_validator("allowed_domains")
    @classmethod
    def _pin_data_entry(cls, value: list[str], info: Any) -> list[str]:
        """A data_entry task stays on its domains: without a list, the start URL's host."""
        if info.data.get("task_profile") is not TaskProfile.data_entry or value:
            return value
        host = domain_of(info.data.get("start_url") or "")
        if not host:
            raise ValueError("a data_entry task needs allowed_domains or a start_url")
        return [host]

    @field_validator("allowed_domains")
    @classmethod
    def _clean_domains(cls, value: list[str]) -> list[str]:
        cleaned = [d.strip().lower().rstrip(".") for d in value]
        if any(
            not d or len(d) > 255 or not d.isprintable() or set(d) & NOT_IN_HOST for d in cleaned
        ):
            raise ValueError("allowed_domains entries must be bare host names")
        return cleaned

    @field_validator("metadata")
    @classmethod
    def _metadata_size(cls, value: dict[str, Any]) -> dict[str, Any]:
        safe_json(value)
        size = len(json.dumps(value, separators=(",", ":")).encode())
        if size > MAX_METADATA_BYTES:
            raise ValueError(f"metadata is {size} bytes; the limit is {MAX_METADATA_BYTES}")
        return value


class WebhookAttempt(BaseModel):
    at: datetime
    status_code: int | None = Field(description="the receiver's HTTP status; null: no answer")
    error: str | None = None


class WebhookOut(BaseModel):
    """The durable outbox row of a task's webhook."""

    state: Literal["pending", "delivered", "failed"] = Field(
        description="pending: waiting for the task to end or for the next retry"
    )
    attempts: int
    next_attempt_at: datetime | None
    delivered_at: datetime | None
    log: list[WebhookAttempt] = Field(description="every attempt, oldest first")


class TaskOut(BaseModel):
    id: str
    status: TaskStatus
    instruction: str
    start_url: str | None
    domain: str | None
    max_steps: int
    timeout_s: float
    allowed_domains: list[str]
    task_profile: str = TaskProfile.general.value
    forbid_login: bool = False
    private_regions: list[str] = Field(default_factory=list)
    reuse_routes: bool = True
    record_trace: bool = False
    time_zone: str = "UTC"
    metadata: dict[str, Any]
    secrets: list[str] = Field(default_factory=list, description="secret names, never values")
    attachments: list[str] = Field(default_factory=list, description="attachment names")
    allow_scripts: bool = False
    output_schema: dict[str, Any] | None = None
    webhook_url: str | None = None
    webhook_events: list[WebhookEvent] = Field(
        default_factory=lambda: [WebhookEvent.task_finished],
        description="the messages webhook_url receives",
    )
    webhook: WebhookOut | None = Field(
        default=None, description="delivery state of the task's webhook (with webhook_url)"
    )
    profile: str | None = None
    save_profile: bool = False
    approval_policy: str = "sensitive"
    approval_timeout_s: float | None = Field(
        default=None, description="how long an approval of this task waits for a person"
    )
    result: TaskResult
    error: str | None = Field(description="machine-readable code (the ErrorCode schema)")
    error_detail: str | None = Field(description="what went wrong, for people")
    usage: Usage
    cost_usd: float | None = Field(
        default=None,
        description="USD of the task's model calls so far, priced by WEBAGENT_LLM_PRICES; "
        "null when no price is configured for a model the task used",
    )
    cancel_requested: bool
    created_at: datetime
    started_at: datetime | None
    finished_at: datetime | None


class TaskPage(BaseModel):
    items: list[TaskOut]
    next_cursor: str | None


class EventOut(BaseModel):
    id: str
    task_id: str
    seq: int
    ts: datetime
    type: str
    data: dict[str, Any]


class StepOut(BaseModel):
    """One agent step assembled from its step.started / action.executed / observation events."""

    step: int
    started_at: datetime | None
    events: list[EventOut]
    action: dict[str, Any] | None
    observation: dict[str, Any] | None
    screenshot_url: str | None


class StepList(BaseModel):
    task_id: str
    steps: list[StepOut]


class CheckOut(BaseModel):
    ok: bool
    detail: str | None = None


class Readiness(BaseModel):
    status: str
    checks: dict[str, CheckOut]


def task_out(task: Any) -> TaskOut:
    """ORM Task row → response body."""
    success = task.success
    return TaskOut(
        id=task.id,
        status=TaskStatus(task.status),
        instruction=task.instruction,
        start_url=task.start_url,
        domain=task.domain,
        max_steps=task.max_steps,
        timeout_s=task.timeout_s,
        allowed_domains=list(task.allowed_domains or []),
        task_profile=task.task_profile or TaskProfile.general.value,
        forbid_login=bool(task.forbid_login),
        private_regions=list(task.private_regions or []),
        reuse_routes=task.reuse_routes is not False,
        record_trace=bool(task.record_trace),
        time_zone=task.time_zone or "UTC",
        metadata=dict(task.meta or {}),
        secrets=list(task.secret_names or []),
        attachments=list(task.attachment_names or []),
        allow_scripts=bool(task.allow_scripts),
        output_schema=task.output_schema,
        webhook_url=task.webhook_url,
        webhook_events=list(task.webhook_events or [WebhookEvent.task_finished]),
        profile=task.profile,
        save_profile=bool(task.save_profile),
        approval_policy=task.approval_policy or "sensitive",
        approval_timeout_s=task.approval_timeout_s,
        result=TaskResult(
            answer=task.answer,
            success=bool(success),
            data=task.result_data,
            grounding=task.result_grounding,
        ),
        error=task.error,
        error_detail=task.error_detail,
        usage=Usage(
            steps=task.steps or 0,
            llm_calls=task.llm_calls or 0,
            input_tokens=task.input_tokens or 0,
            output_tokens=task.output_tokens or 0,
        ),
        cancel_requested=bool(task.cancel_requested),
        created_at=task.created_at,
        started_at=task.started_at,
        finished_at=task.finished_at,
    )


# browser profiles (app/api/profiles.py)
NAME_PATTERN = r"^[A-Za-z0-9_.-]{1,64}$"


class ProfileCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: SafeStr = Field(
        pattern=NAME_PATTERN, description="1-64 of A-Z a-z 0-9 _ . -", examples=["shop-login"]
    )


class ProfileOut(BaseModel):
    name: str
    has_state: bool = Field(description="a run with save_profile has stored a storage state")
    saved_at: datetime | None = Field(description="when a run last saved the storage state")
    created_at: datetime


class ProfileList(BaseModel):
    items: list[ProfileOut]
