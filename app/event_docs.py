"""Schemas of the `data` of each SSE event type, for the OpenAPI document (not validation).

Each model lists the fields its emitter writes (workers/jobs.py, workers/agent/loop/loop.py,
workers/agent/loop/metered.py, workers/agent/loop/search.py, the approvals gate); emitters may add
fields, so every model allows extra ones. app/openapi.py publishes them as
`EventData_<type>` components next to `EventSchema`.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from app.contracts import EventType, TaskStatus, Usage


class _Data(BaseModel):
    model_config = ConfigDict(extra="allow")


class TaskStarted(_Data):
    worker_id: str
    instruction: str
    start_url: str | None


class TaskFinished(_Data):
    status: TaskStatus
    answer: str | None
    success: bool
    data: Any = Field(default=None, description="structured result (output_schema)")
    error: str | None = Field(description="ErrorCode value")
    error_detail: str | None = Field(description="why, in words for the person who asked")
    cause: str | None = Field(
        default=None, description="the raw failure behind error_detail, for operators"
    )
    usage: Usage
    duration_s: float | None = None


class RouteDecided(_Data):
    kind: str = Field(description="browser | search")
    confidence: float
    families: list[str]
    source: str = Field(description="classifier | learning | no_fetch | search_fallback")


class RouteReplayed(_Data):
    route_id: str
    route_steps: int = Field(description="steps of the stored route")
    replayed_steps: list[int] = Field(
        description="run steps replayed from the route without a model call, effect verified"
    )
    model_steps: list[int] = Field(description="run steps the model decided")
    skipped: int = Field(description="optional route steps skipped (a popup not shown)")
    fell_back_at: int | None = Field(
        description="route step (0-based) whose target or effect did not show: the model "
        "took over there; null when the whole route replayed"
    )
    reason: str = Field(description="why the replay handed over ('' when complete)")


class StepStarted(_Data):
    step: int
    replayed: bool = Field(default=False, description="a step replayed from a proven route")


class ActionExecuted(_Data):
    step: int = Field(description="0: opening the start page")
    action: str = Field(description="tool name, e.g. click, navigate, done")
    args: dict[str, Any] = Field(description="arguments, secrets redacted")
    success: bool
    reason: str
    error: str | None = Field(description="tool error code when not successful")
    page_changed: bool
    replayed: bool = Field(
        default=False, description="replayed from a proven route (no model call decided it)"
    )
    cause: str | None = Field(
        default=None, description="the raw failure behind reason (e.g. a net:: code), for operators"
    )
    tier: str | None = Field(
        default=None, description="a click's transport tier that acted (cdp, playwright, js)"
    )
    tried: list[str] | None = Field(
        default=None,
        description="the transport tiers tried, in order (the model sees them after a fallback)",
    )


class ObservationEvent(_Data):
    step: int
    url: str
    title: str
    version: int = Field(description="snapshot version; refs are version:n")
    refs: int
    interactive: int
    tokens: int
    fingerprint: str
    stats: dict[str, Any]
    preview: str = Field(description="the first characters of what the model saw")


class LLMCall(_Data):
    step: int | None = Field(description="null outside the step loop (perception)")
    role: str = Field(description="orchestrator | planner | worker | vision | summarizer")
    model: str
    input_tokens: int
    output_tokens: int
    latency_s: float
    finish_reason: str | None
    tool_calls: int
    content: str | None = Field(description="the model's text, capped")
    reasoning: str | None = Field(description="reasoning text when the server sends it")


class ApprovalRequested(_Data):
    approval_id: str
    kind: str = Field(description="sensitive_action | challenge | login")
    reason: str
    url: str | None = None
    element: str | None = None
    screenshot: str | None = Field(default=None, description="artifact id")
    expires_at: str | None = None


class ApprovalResolved(_Data):
    approval_id: str
    decision: str
    by: str | None = None


class TakeoverStarted(_Data):
    by: str = Field(description="who took over (an API key id, or local)")
    reason: str = Field(description="takeover: the person asked for the page")


class TakeoverEnded(_Data):
    by: str
    acts: dict[str, int] = Field(
        description="how many clicks, wheel scrolls and key presses the person sent "
        "(the keys themselves are not recorded)"
    )
    url: str = Field(description="the page the person left")
    held_s: float = Field(default=0.0, description="how long the person held the page")
    screenshot: str | None = Field(
        default=None,
        description="artifact id of the page's screenshot at hand-back (kind takeover; "
        "GET /v1/tasks/{id}/artifacts/{artifact_id}), null when none was kept",
    )


class MemoryUsed(_Data):
    """What the run used of its sites' memory and what that saved, sent once at the end
    (only when the run used or stored some)."""

    route: dict[str, Any] | None = Field(
        description="the route replayed: id, replayed_steps, fell_back_at (the route step the "
        "model took over at; null: replayed whole); null when none"
    )
    facts: list[dict[str, str]] = Field(
        description="earlier runs' facts shown to this run's prompts: domain, key"
    )
    saved: dict[str, float | None] = Field(
        description="calls: model calls not made (each replayed step); seconds: those calls "
        "times this run's mean Worker call latency (null when it made none)"
    )
    stored: dict[str, Any] = Field(
        description="route: the intent of the route this run wrote (null: none); facts: "
        "facts kept for later runs"
    )


class StepScoped(_Data):
    """Brain events (plan, memory, facts, dead ends): at least the step they belong to."""

    step: int | None = None


EVENT_DATA: dict[str, type[BaseModel]] = {
    EventType.task_started.value: TaskStarted,
    EventType.task_finished.value: TaskFinished,
    EventType.route_decided.value: RouteDecided,
    EventType.route_replayed.value: RouteReplayed,
    EventType.step_started.value: StepStarted,
    EventType.action_executed.value: ActionExecuted,
    EventType.observation.value: ObservationEvent,
    EventType.llm_call.value: LLMCall,
    EventType.approval_requested.value: ApprovalRequested,
    EventType.approval_resolved.value: ApprovalResolved,
    EventType.takeover_started.value: TakeoverStarted,
    EventType.takeover_ended.value: TakeoverEnded,
    EventType.plan_updated.value: StepScoped,
    EventType.memory_evicted.value: StepScoped,
    EventType.memory_used.value: MemoryUsed,
    EventType.fact_recorded.value: StepScoped,
    EventType.dead_end_recorded.value: StepScoped,
}


def component_name(event_type: str) -> str:
    return "EventData_" + event_type.replace(".", "_")
