"""ORM rows for runs, step events, artifacts, memory and API keys.

Plain declarative classes (no behaviour): repositories own the queries. Column
types are chosen so one Alembic tree serves Postgres and SQLite alike.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, ClassVar

from sqlalchemy import (
    JSON,
    Boolean,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
    true,
)
from sqlalchemy import (
    text as sql_text,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from app.contracts import DEFAULT_TENANT, TaskStatus
from app.db.types import UTCDateTime, utcnow

# Deterministic constraint names so migrations can address them on both backends.
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def new_id() -> str:
    """Row ids are uuid4 hex: unguessable, sortable-free, 32 chars."""
    return uuid.uuid4().hex


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map: ClassVar[dict[Any, Any]] = {
        datetime: UTCDateTime(),
        dict[str, Any]: JSON(),
    }


def _zero() -> Any:
    return sql_text("0")


class Task(Base):
    """One submitted run: its request, lifecycle timestamps, outcome and usage."""

    __tablename__ = "tasks"
    __table_args__ = (
        UniqueConstraint("tenant_id", "idempotency_key"),
        Index("ix_tasks_tenant_id_created_at_id", "tenant_id", "created_at", "id"),
        Index("ix_tasks_status_heartbeat_at", "status", "heartbeat_at"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(64), default=DEFAULT_TENANT)
    status: Mapped[str] = mapped_column(String(32), default=TaskStatus.queued.value)
    instruction: Mapped[str] = mapped_column(Text)
    start_url: Mapped[str | None] = mapped_column(Text, nullable=True)
    domain: Mapped[str | None] = mapped_column(String(255), nullable=True)
    max_steps: Mapped[int] = mapped_column(Integer)
    timeout_s: Mapped[float] = mapped_column(Float)
    allowed_domains: Mapped[list[str]] = mapped_column(JSON, default=list)
    # task policy (migration 0007): seed 003 §9.3 profile, login ban, regions hidden from the model
    task_profile: Mapped[str | None] = mapped_column(String(32), nullable=True)
    forbid_login: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    private_regions: Mapped[list[str] | None] = mapped_column(JSON, nullable=True, default=list)
    # false: the run does not replay a proven route of its site (migration 0011, issue 21)
    reuse_routes: Mapped[bool] = mapped_column(Boolean, default=True, server_default=true())
    time_zone: Mapped[str | None] = mapped_column(String(64), nullable=True)  # migration 0015
    approval_timeout_s: Mapped[float | None] = mapped_column(Float, nullable=True)  # migration 0018
    meta: Mapped[dict[str, Any]] = mapped_column("metadata", JSON, default=dict)
    # task secrets: names in clear, {name: {value, domains}} as one Fernet token (app/secrets.py)
    secret_names: Mapped[list[str] | None] = mapped_column(JSON, nullable=True, default=list)
    secrets_sealed: Mapped[str | None] = mapped_column(Text, nullable=True)
    # "sensitive": risky actions and challenges wait for a person (migration 0005); "none"
    approval_policy: Mapped[str] = mapped_column(
        String(16), default="sensitive", server_default=sql_text("'sensitive'")
    )
    # results & delivery (migration 0006): JSON Schema of the answer, its validated JSON,
    # the webhook target, and the named browser profile the run starts from / saves to
    output_schema: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    result_data: Mapped[Any] = mapped_column(JSON, nullable=True)
    result_grounding: Mapped[Any] = mapped_column(JSON, nullable=True)  # the answer check
    webhook_url: Mapped[str | None] = mapped_column(Text, nullable=True)
    # the events the webhook receives (NULL: task.finished only; migration 0013)
    webhook_events: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    profile: Mapped[str | None] = mapped_column(String(64), nullable=True)
    save_profile: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    idempotency_key: Mapped[str | None] = mapped_column(String(255), nullable=True)
    request_hash: Mapped[str | None] = mapped_column(String(64), nullable=True)
    answer: Mapped[str | None] = mapped_column(Text, nullable=True)
    success: Mapped[bool | None] = mapped_column(Boolean, nullable=True)
    error: Mapped[str | None] = mapped_column(String(64), nullable=True)
    error_detail: Mapped[str | None] = mapped_column(Text, nullable=True)
    steps: Mapped[int] = mapped_column(Integer, default=0, server_default=_zero())
    llm_calls: Mapped[int] = mapped_column(Integer, default=0, server_default=_zero())
    input_tokens: Mapped[int] = mapped_column(Integer, default=0, server_default=_zero())
    output_tokens: Mapped[int] = mapped_column(Integer, default=0, server_default=_zero())
    cancel_requested: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    worker_id: Mapped[str | None] = mapped_column(String(255), nullable=True)
    heartbeat_at: Mapped[datetime | None] = mapped_column(nullable=True)
    # migration 0008: evaluate_script is offered and runs only when the task allows it
    allow_scripts: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    attachment_names: Mapped[list[str] | None] = mapped_column(JSON, nullable=True, default=list)
    # migration 0016: a Playwright trace of the run is kept as artifact kind "trace"
    record_trace: Mapped[bool] = mapped_column(Boolean, default=False, server_default=false())
    # migration 0008: per-task model budgets (workers/adapters/budget.py); NULL = no limit
    max_tokens: Mapped[int | None] = mapped_column(Integer, nullable=True)
    max_cost_usd: Mapped[float | None] = mapped_column(Float, nullable=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    queued_at: Mapped[datetime | None] = mapped_column(nullable=True, default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(nullable=True)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class DomainMemory:
    """The leading columns of memory that outlives its task (facts, dead ends)."""

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id, sort_order=-1)
    task_id: Mapped[str | None] = mapped_column(
        ForeignKey("tasks.id", ondelete="SET NULL"), nullable=True, index=True, sort_order=-1
    )
    tenant_id: Mapped[str] = mapped_column(String(64), sort_order=-1)
    domain: Mapped[str | None] = mapped_column(String(255), nullable=True, sort_order=-1)


class TaskOwned:
    """The leading columns of a row that belongs to one task of one tenant and goes with it."""

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id, sort_order=-1)
    task_id: Mapped[str] = mapped_column(ForeignKey("tasks.id", ondelete="CASCADE"), sort_order=-1)
    tenant_id: Mapped[str] = mapped_column(String(64), sort_order=-1)


class TaskEvent(Base):
    """A durable step event; (task_id, seq) is unique and `seq` is the SSE id."""

    __tablename__ = "task_events"
    __table_args__ = (UniqueConstraint("task_id", "seq"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    task_id: Mapped[str] = mapped_column(ForeignKey("tasks.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(Integer)
    ts: Mapped[datetime] = mapped_column(default=utcnow)
    type: Mapped[str] = mapped_column(String(64))
    data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)


class TaskAttachment(Base):
    """A file uploaded with the task (migration 0008): what upload_file may use (seed 001
    App. A.5); the worker stages them as files for the browser session."""

    __tablename__ = "task_attachments"
    __table_args__ = (UniqueConstraint("task_id", "name"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    task_id: Mapped[str] = mapped_column(ForeignKey("tasks.id", ondelete="CASCADE"))
    name: Mapped[str] = mapped_column(String(255))
    media_type: Mapped[str] = mapped_column(String(128))
    size: Mapped[int] = mapped_column(Integer)
    # rows before migration 0016 held the bytes; `webagent artifacts migrate` moves them to
    # the artifact store (app/store) and clears this column; new rows never fill it
    data: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True, deferred=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    sha256: Mapped[str | None] = mapped_column(String(64), nullable=True)
    storage_key: Mapped[str | None] = mapped_column(String(512), nullable=True)


class Artifact(TaskOwned, Base):
    """Binary evidence of a step (screenshots) and files the page produced (downloads, kind
    "download": `step` numbers them 1, 2, ... in the task, `name` is the file name); one per
    (task, kind, step)."""

    __tablename__ = "artifacts"
    __table_args__ = (UniqueConstraint("task_id", "kind", "step"),)

    kind: Mapped[str] = mapped_column(String(32))
    step: Mapped[int] = mapped_column(Integer)
    content_type: Mapped[str] = mapped_column(String(128))
    # legacy bytes of rows before migration 0016 (see TaskAttachment.data); NULL once moved
    data: Mapped[bytes | None] = mapped_column(LargeBinary, nullable=True, deferred=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    name: Mapped[str | None] = mapped_column(String(255), nullable=True)  # file name (downloads)
    # migration 0016: the bytes live in the artifact store under storage_key (app/store)
    size: Mapped[int] = mapped_column(Integer, default=0, server_default=_zero())
    sha256: Mapped[str | None] = mapped_column(String(64), nullable=True)
    storage_key: Mapped[str | None] = mapped_column(String(512), nullable=True)


class Ledger(Base):
    """The latest structured ledger snapshot of a run (seed 000 §5.2)."""

    __tablename__ = "ledgers"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    task_id: Mapped[str] = mapped_column(ForeignKey("tasks.id", ondelete="CASCADE"), unique=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class Fact(DomainMemory, Base):
    """A fact the agent recorded; outlives its task so later runs on a domain reuse it."""

    __tablename__ = "facts"
    __table_args__ = (Index("ix_facts_tenant_id_domain", "tenant_id", "domain"),)

    key: Mapped[str | None] = mapped_column(String(255), nullable=True)  # the Ledger's fact key
    category: Mapped[str] = mapped_column(String(64))
    text: Mapped[str] = mapped_column(Text)  # the fact's value
    confidence: Mapped[float] = mapped_column(Float)
    source_step: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    url: Mapped[str | None] = mapped_column(Text, nullable=True)  # the page it was read on


class DeadEnd(DomainMemory, Base):
    """A URL that led nowhere, with its cause tag; steers later runs away from it.

    `cause` is the seed 000 §5.2 cause tag (network, bot_block, ...); `description` the
    one-line account of what failed there; `signature` the failing action, so a later run
    can recognise a repeat.
    """

    __tablename__ = "dead_ends"
    __table_args__ = (Index("ix_dead_ends_tenant_id_domain", "tenant_id", "domain"),)

    url: Mapped[str] = mapped_column(Text)
    cause: Mapped[str] = mapped_column(Text)
    description: Mapped[str | None] = mapped_column(Text, nullable=True)
    signature: Mapped[str | None] = mapped_column(Text, nullable=True)  # the failing action
    step: Mapped[int | None] = mapped_column(Integer, nullable=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class LedgerStep(TaskOwned, Base):
    """One StepOutcome of a run, append-only (seed 000 §5.2 steps.jsonl): the trajectory."""

    __tablename__ = "ledger_steps"
    __table_args__ = (Index("ix_ledger_steps_task_id_step", "task_id", "step"),)

    step: Mapped[int] = mapped_column(Integer)
    data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class EpisodicNote(TaskOwned, Base):
    """A free-form Ledger note (subgoal summary, archival marker), append-only."""

    __tablename__ = "episodic_notes"
    __table_args__ = (Index("ix_episodic_notes_task_id_created_at", "task_id", "created_at"),)

    step: Mapped[int | None] = mapped_column(Integer, nullable=True)
    kind: Mapped[str] = mapped_column(String(32), default="note")  # note|summary|archive|...
    text: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)


class DomainLearning(Base):
    """Per-domain key/value learnings (seed 000); `hits` counts confirmations."""

    __tablename__ = "domain_learnings"
    __table_args__ = (UniqueConstraint("tenant_id", "domain", "key"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(64))
    domain: Mapped[str] = mapped_column(String(255))
    key: Mapped[str] = mapped_column(String(255))
    value: Mapped[Any] = mapped_column(JSON)
    hits: Mapped[int] = mapped_column(Integer, default=1, server_default=sql_text("1"))
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)
    # the runs that wrote this key, newest first (migration 0010; a few kept)
    task_ids: Mapped[list[str] | None] = mapped_column(JSON, nullable=True)
    created_at: Mapped[datetime | None] = mapped_column(nullable=True, default=utcnow)


class Guide(Base):
    """An operator's markdown guide (issue 21, seed 004 §3.1): for one site (`domain`), or
    for every site of the tenant (`domain` NULL); the Planner turns the passages relevant to
    a task into its first directives (workers/agent/people/guidance.py)."""

    __tablename__ = "guides"
    __table_args__ = (Index("ix_guides_tenant_id_domain", "tenant_id", "domain"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(64))
    domain: Mapped[str | None] = mapped_column(String(255), nullable=True)
    title: Mapped[str] = mapped_column(String(200))
    body: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class Route(Base):
    """A proven route of a site for one intent (issue 21, workers/agent/memory/routes.py): the
    action trace of a verified run with the task's values as slots. One per (tenant, domain,
    intent); `version` counts rewrites (the site changed); `replays` the runs that replayed
    it, `fallbacks` those where the model took over before its end, `successes` those that
    passed the service's checks (issue 34, migration 0019)."""

    __tablename__ = "routes"
    __table_args__ = (UniqueConstraint("tenant_id", "domain", "intent_key"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(64))
    domain: Mapped[str] = mapped_column(String(255))
    intent_key: Mapped[str] = mapped_column(String(64))  # sha256 of `intent`
    intent: Mapped[str] = mapped_column(Text)  # the instruction with its slots blanked
    instruction: Mapped[str] = mapped_column(Text)  # of the run that wrote it
    slots: Mapped[list[int]] = mapped_column(JSON)
    start: Mapped[str] = mapped_column(Text)  # URL pattern of the first page
    steps: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    version: Mapped[int] = mapped_column(Integer, default=1, server_default=sql_text("1"))
    replays: Mapped[int] = mapped_column(Integer, default=0, server_default=sql_text("0"))
    fallbacks: Mapped[int] = mapped_column(Integer, default=0, server_default=sql_text("0"))
    successes: Mapped[int] = mapped_column(Integer, default=0, server_default=sql_text("0"))
    task_id: Mapped[str | None] = mapped_column(String(32), nullable=True)  # last writer
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)
    last_replayed_at: Mapped[datetime | None] = mapped_column(nullable=True)


class SiteDeadEnd(Base):
    """One dead end of a site as later runs read it (seed 000 §5.2, issue 21): per
    (tenant, domain, page + action) `key`, with a count, first/last seen, the runs that saw
    it first and last, and when it stops blocking (`expires_at`, by cause; NULL: lasts).
    `dead_ends` keeps each run's own record."""

    __tablename__ = "site_dead_ends"
    __table_args__ = (UniqueConstraint("tenant_id", "domain", "key"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(64))
    domain: Mapped[str] = mapped_column(String(255))
    key: Mapped[str] = mapped_column(String(64))  # sha256 of (page, signature or description)
    page: Mapped[str] = mapped_column(Text)  # host + path
    url: Mapped[str] = mapped_column(Text)  # the last URL it happened on
    cause: Mapped[str] = mapped_column(String(64))
    description: Mapped[str | None] = mapped_column(Text, nullable=True)
    signature: Mapped[str | None] = mapped_column(Text, nullable=True)
    target: Mapped[str | None] = mapped_column(Text, nullable=True)  # element, page text
    # the page state it was last seen in (workers/agent/memory/ledger.py page_fingerprint);
    # migration 0019, NULL: any state
    fingerprint: Mapped[str | None] = mapped_column(String(64), nullable=True)
    count: Mapped[int] = mapped_column(Integer, default=1, server_default=sql_text("1"))
    first_seen: Mapped[datetime] = mapped_column(default=utcnow)
    last_seen: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime | None] = mapped_column(nullable=True)
    first_task_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    last_task_id: Mapped[str | None] = mapped_column(String(32), nullable=True)


class ApiKey(Base):
    """An API key; only the sha256 of the secret is stored, plus a display prefix."""

    __tablename__ = "api_keys"

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(64), index=True)
    name: Mapped[str] = mapped_column(String(255))
    key_hash: Mapped[str] = mapped_column(String(64), unique=True)
    prefix: Mapped[str] = mapped_column(String(16))
    # space-separated scopes (app/auth.py Scope); migration 0003
    scopes: Mapped[str] = mapped_column(
        String(255), server_default=sql_text("'tasks:write tasks:read learnings:read'")
    )
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    revoked_at: Mapped[datetime | None] = mapped_column(nullable=True)


class Approval(TaskOwned, Base):
    """A person's decision a paused task waits for (migration 0005, app/db/repo_approvals.py).

    `kind`: sensitive_action | challenge | login; `status`: pending -> approved | denied |
    expired; `details`: url, element, screenshot artifact id and what the rule matched.
    """

    __tablename__ = "approvals"
    __table_args__ = (Index("ix_approvals_task_id_created_at", "task_id", "created_at"),)

    kind: Mapped[str] = mapped_column(String(32))
    status: Mapped[str] = mapped_column(String(16), default="pending")
    reason: Mapped[str] = mapped_column(Text)
    details: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime] = mapped_column()
    decided_at: Mapped[datetime | None] = mapped_column(nullable=True)
    decided_by: Mapped[str | None] = mapped_column(String(255), nullable=True)


class WebhookDelivery(Base):
    """One durable outbox message of a task's webhook: `task.finished` is sent once the task
    is terminal, `task.started` and `approval.requested` (with the approval in `data`) as
    soon as they are written.

    `attempts_log` keeps every try ({at, status_code, error}); `next_attempt_at` is the
    backoff schedule and doubles as the claim lease of a deliverer.
    """

    __tablename__ = "webhook_deliveries"
    __table_args__ = (
        Index("ix_webhook_deliveries_state_next_attempt_at", "state", "next_attempt_at"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    task_id: Mapped[str] = mapped_column(ForeignKey("tasks.id", ondelete="CASCADE"), index=True)
    tenant_id: Mapped[str] = mapped_column(String(64))
    url: Mapped[str] = mapped_column(Text)
    event_type: Mapped[str] = mapped_column(
        String(32), default="task.finished", server_default="task.finished"
    )
    data: Mapped[dict[str, Any] | None] = mapped_column(JSON, nullable=True)
    state: Mapped[str] = mapped_column(String(16), default="pending")  # pending|delivered|failed
    attempts: Mapped[int] = mapped_column(Integer, default=0, server_default=_zero())
    attempts_log: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    next_attempt_at: Mapped[datetime | None] = mapped_column(nullable=True)
    delivered_at: Mapped[datetime | None] = mapped_column(nullable=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class BrowserProfile(Base):
    """A named, tenant-scoped browser storage state (cookies, localStorage), Fernet-sealed."""

    __tablename__ = "browser_profiles"
    __table_args__ = (UniqueConstraint("tenant_id", "name"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(64))
    name: Mapped[str] = mapped_column(String(64))
    storage_sealed: Mapped[str | None] = mapped_column(Text, nullable=True)
    saved_at: Mapped[datetime | None] = mapped_column(nullable=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class SiteExploration(Base):
    """One site exploration job (seed 001 §2.3, App. A.2; app/api/sites.py): its request,
    lifecycle and progress; the WebsiteMem it wrote is `website_mems` row `version` of the
    domain (migration 0012)."""

    __tablename__ = "site_explorations"
    __table_args__ = (
        Index("ix_site_explorations_tenant_id_created_at", "tenant_id", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(64))
    domain: Mapped[str] = mapped_column(String(255))
    url: Mapped[str] = mapped_column(Text)
    status: Mapped[str] = mapped_column(String(32), default=TaskStatus.queued.value)
    # max_depth, max_pages, max_elements_per_page, timeout_s, allowed_domains
    params: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    progress: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    error: Mapped[str | None] = mapped_column(String(64), nullable=True)
    error_detail: Mapped[str | None] = mapped_column(Text, nullable=True)
    version: Mapped[int | None] = mapped_column(Integer, nullable=True)  # the WebsiteMem written
    worker_id: Mapped[str | None] = mapped_column(String(255), nullable=True)
    heartbeat_at: Mapped[datetime | None] = mapped_column(nullable=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    started_at: Mapped[datetime | None] = mapped_column(nullable=True)
    finished_at: Mapped[datetime | None] = mapped_column(nullable=True)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)


class WebsiteMemRow(Base):
    """A site's WebsiteMem (app/contracts.py WebsiteMem as JSON), versioned per (tenant,
    domain): each exploration adds the next version; later tasks read the newest."""

    __tablename__ = "website_mems"
    __table_args__ = (UniqueConstraint("tenant_id", "domain", "version"),)

    id: Mapped[str] = mapped_column(String(32), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(64))
    domain: Mapped[str] = mapped_column(String(255))
    version: Mapped[int] = mapped_column(Integer)
    exploration_id: Mapped[str | None] = mapped_column(String(32), nullable=True)
    start_url: Mapped[str] = mapped_column(Text)
    pages: Mapped[int] = mapped_column(Integer, default=0, server_default=_zero())
    data: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
