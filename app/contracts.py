"""Stable contracts shared by the API and the workers: statuses, event types, task spec.

Imports nothing from the project so both sides (and clients) can depend on it.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

DEFAULT_TENANT = "default"
QUEUE_NAME = "webagent"
JOB_FUNC = "workers.jobs.run_task"
# the second job on the same queue and workers: a site exploration (seed 001 §2.3, App. A.2)
EXPLORE_JOB_FUNC = "workers.exploration_job.run_exploration"


def stream_key(task_id: str) -> str:
    """Redis Stream carrying a task's live events."""
    return f"webagent:events:{task_id}"


def cancel_key(task_id: str) -> str:
    """Redis key set when a cancel is requested (the DB column is the source of truth)."""
    return f"webagent:cancel:{task_id}"


class TaskStatus(StrEnum):
    queued = "queued"
    running = "running"
    awaiting_approval = "awaiting_approval"
    succeeded = "succeeded"
    failed = "failed"
    cancelled = "cancelled"
    timed_out = "timed_out"

    @property
    def terminal(self) -> bool:
        return self in TERMINAL_STATUSES


TERMINAL_STATUSES = frozenset(
    {TaskStatus.succeeded, TaskStatus.failed, TaskStatus.cancelled, TaskStatus.timed_out}
)


class TaskProfile(StrEnum):
    """Which tools the agent may use (enforced by workers/agent/people/task_profiles.py)."""

    # the specialised agents of seed 003 §9.3

    general = "general"
    assistant = "assistant"
    research = "research"
    data_entry = "data_entry"


class EventType(StrEnum):
    task_started = "task.started"
    route_decided = "route.decided"
    route_replayed = "route.replayed"
    plan_updated = "plan.updated"
    step_started = "step.started"
    action_executed = "action.executed"
    observation = "observation"
    memory_evicted = "memory.evicted"
    memory_used = "memory.used"  # what the run used of its sites' memory, what it saved
    fact_recorded = "fact.recorded"
    dead_end_recorded = "dead_end.recorded"
    approval_requested = "approval.requested"
    approval_resolved = "approval.resolved"
    takeover_started = "takeover.started"  # a person has the page, the agent paused
    takeover_ended = "takeover.ended"  # the person handed the page back
    llm_call = "llm.call"
    task_finished = "task.finished"


class ErrorCode(StrEnum):
    """Machine-readable `error` values on failed tasks."""

    worker_lost = "worker_lost"
    max_steps = "max_steps"
    timeout = "timeout"
    llm_error = "llm_error"
    browser_error = "browser_error"
    guard_violation = "guard_violation"
    login_prohibited = "login_prohibited"  # forbid_login and a login form on the page
    configuration = "configuration"
    internal = "internal"
    gave_up = "gave_up"
    interrupted = "interrupted"  # the worker was stopped (shutdown grace ran out) mid-task
    bot_blocked = "bot_blocked"  # a challenge or block page nobody cleared (approval denied)
    output_invalid = "output_invalid"  # the answer did not match output_schema after a repair
    start_page_unreachable = "start_page_unreachable"  # the start page never loaded
    budget_exceeded = (
        "budget_exceeded"  # max_tokens or max_cost_usd ran out (workers/adapters/budget.py)
    )
    browser_crashed = "browser_crashed"  # Chromium or the page crashed mid-task


class ApprovalPolicy(StrEnum):
    """Whether a task pauses for a person: before sensitive actions and on challenges."""

    sensitive = "sensitive"
    none = "none"


class ApprovalKind(StrEnum):
    sensitive_action = "sensitive_action"
    challenge = "challenge"
    login = "login"


class ApprovalStatus(StrEnum):
    pending = "pending"
    approved = "approved"
    denied = "denied"
    expired = "expired"  # nobody answered in time (or the task ended first): a denial


class WebhookEvent(StrEnum):
    """Messages a task's webhook may receive, chosen per task with `webhook_events`."""

    task_started = "task.started"
    approval_requested = "approval.requested"
    task_finished = "task.finished"


class TaskSpec(BaseModel):
    """What a worker needs to run a task; built from the task row."""

    model_config = ConfigDict(frozen=True)

    task_id: str
    tenant_id: str = DEFAULT_TENANT
    instruction: str
    start_url: str | None = None
    max_steps: int
    timeout_s: float
    allowed_domains: tuple[str, ...] = ()
    task_profile: TaskProfile = TaskProfile.general  # which tools the model may use
    forbid_login: bool = False  # a login form on the page fails the task
    private_regions: tuple[str, ...] = ()  # CSS selectors never shown to the model
    time_zone: str = "UTC"  # IANA name: the date and time the prompts show (issue 22)
    reuse_routes: bool = True  # replay a proven route of the start page's domain (issue 21)
    record_trace: bool = False  # keep a Playwright trace.zip artifact of the run (issue 25)
    metadata: dict[str, Any] = Field(default_factory=dict)
    secret_names: tuple[str, ...] = ()
    secrets_sealed: str | None = Field(default=None, repr=False)  # Fernet token, app/secrets.py
    allow_scripts: bool = False  # evaluate_script offered and run (seed 000 App. A opt-in)
    attachments: tuple[str, ...] = ()  # names of the files uploaded with the task
    approval_policy: str = "sensitive"  # ApprovalPolicy: "sensitive" pauses for a person
    approval_timeout_s: float | None = None  # how long an approval waits (admission decides)
    output_schema: dict[str, Any] | None = None  # JSON Schema of result.data
    profile: str | None = None  # named browser profile whose storage state the run starts from
    save_profile: bool = False  # write the context's storage state back to `profile` after
    max_tokens: int | None = (
        None  # model tokens (in + out) the task may use (workers/adapters/budget.py)
    )
    max_cost_usd: float | None = None  # model cost, priced by WEBAGENT_LLM_PRICES


class Usage(BaseModel):
    steps: int = 0
    llm_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


class GroundingVerdict(StrEnum):
    """How the answer check judged a succeeded task's answer
    (workers/agent/judge/answer_check.py)."""

    verified = "verified"  # every checkable claim was on a page the run saw (or derived)
    unverified = "unverified"  # some claims were seen nowhere, even after one feedback round
    no_claims = "no_claims"  # nothing in the answer could be looked up


class Grounding(BaseModel):
    """The answer checked against the text the run saw: observations, read_text chunks,
    search hits, downloaded files, fetched pages and the task's own instruction."""

    verdict: GroundingVerdict = Field(
        description="verified, unverified (see unseen) or no_claims; an unverified answer "
        "leaves the task succeeded but is never shown as verified"
    )
    checked: int = Field(description="checkable claims: quoted strings, codes, URLs, ...")
    unseen: list[str] = Field(
        default_factory=list, description="claims no page the run saw shows, as written"
    )
    derived: list[str] = Field(
        default_factory=list,
        description="numbers not on a page but derived from seen ones (sum, difference, count)",
    )
    corrected: bool = Field(default=False, description="the feedback round changed the answer")
    answer_before_check: str | None = Field(
        default=None, description="the model's answer before the feedback round changed it"
    )
    run_together: list[str] = Field(
        default_factory=list,
        description="codes seen only run together with other text (no boundary on the page)",
    )
    rejected_correction: str | None = Field(
        default=None,
        description="the feedback round's answer, not taken: it stated a value no page showed "
        "or dropped one a page showed",
    )


class TaskResult(BaseModel):
    answer: str | None = None
    success: bool = False
    data: Any = Field(
        default=None, description="the answer as JSON valid against the task's output_schema"
    )
    grounding: Grounding | None = Field(
        default=None,
        description="the answer checked against what the run saw; null when not checked "
        "(the run did not succeed, or finished before this check existed)",
    )


class Event(BaseModel):
    """One step event; `seq` is strictly increasing per task and is the SSE `id:`."""

    id: str
    task_id: str
    seq: int
    ts: datetime
    type: str
    data: dict[str, Any] = Field(default_factory=dict)


# --- site exploration (seed 001 §2.3, App. A.1.1 / A.2): the WebsiteMem a job writes --------

WEBSITE_MEM_SCHEMA = 1


class ElementEffect(StrEnum):
    """What clicking an element did during exploration."""

    # seed 001 App. A.2 ExploreElement

    navigates = "navigates"  # the URL changed (or a new tab opened): `target`
    reveals = "reveals"  # same URL, new elements shown: `revealed` (dropdown / menu items)
    no_effect = "no_effect"
    failed = "failed"  # the click could not be done (covered, detached, timed out)


class SectionOutline(BaseModel):
    """One PageSection as the exploration saw it: deterministic title and a short extract of
    its own text (no model summary)."""

    title: str
    kind: str
    summary: str = ""


class PageRecord(BaseModel):
    url: str
    title: str
    depth: int = Field(description="clicks from the start page (0 = start page)")
    summary: str = Field(default="", description="the page's first heading and text, clipped")
    sections: list[SectionOutline] = Field(default_factory=list)
    template: str | None = Field(
        default=None, description="pattern of the template the page matched"
    )
    via: str | None = Field(default=None, description="the element whose click reached the page")
    iterated: bool = Field(
        default=False, description="its elements were clicked (not a known shape)"
    )


class PageTemplate(BaseModel):
    # seed 001 A.2 MatchesTemplate
    """A list page or list-item page shape: pages of the same
    section structure; `pattern` is their URL template ({} = a path segment that varies,
    name=* = a query parameter that varies)."""

    pattern: str
    signature: str = Field(description="digest of the section structure")
    kind: str = Field(description="list (holds a repeated list) or item (reached from one)")
    urls: list[str] = Field(default_factory=list, description="pages known to have this shape")


class ElementRecord(BaseModel):
    page: str = Field(description="URL of the page the element was clicked on")
    label: str = Field(description='role and accessible name, e.g. link "Products"')
    effect: ElementEffect
    target: str | None = None
    revealed: list[str] = Field(default_factory=list, description="labels the click revealed")
    parent: str | None = Field(
        default=None, description="the control whose click revealed this one"
    )


class SkippedElement(BaseModel):
    page: str
    label: str
    href: str | None = None
    reason: str = Field(description="off_site, auth, scheme, destructive, download, policy ...")


class WebsiteMem(BaseModel):
    # seed 001 App. A.1.1
    """A site's memory from one exploration: its pages by URL, its
    list/item templates and the behaviour of the elements clicked."""

    schema_version: int = WEBSITE_MEM_SCHEMA
    version: int | None = Field(
        default=None, description="the site's WebsiteMem version (1, 2, ...)"
    )
    domain: str
    start_url: str
    pages: list[PageRecord] = Field(default_factory=list)
    templates: list[PageTemplate] = Field(default_factory=list)
    elements: list[ElementRecord] = Field(default_factory=list)
    skipped: list[SkippedElement] = Field(default_factory=list)
    stats: dict[str, Any] = Field(default_factory=dict)
