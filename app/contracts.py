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


class EventType(StrEnum):
    task_started = "task.started"
    route_decided = "route.decided"
    plan_updated = "plan.updated"
    step_started = "step.started"
    action_executed = "action.executed"
    observation = "observation"
    memory_evicted = "memory.evicted"
    fact_recorded = "fact.recorded"
    dead_end_recorded = "dead_end.recorded"
    approval_requested = "approval.requested"
    approval_resolved = "approval.resolved"
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
    configuration = "configuration"
    internal = "internal"
    gave_up = "gave_up"
    interrupted = "interrupted"  # the worker was stopped (shutdown grace ran out) mid-task


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
    metadata: dict[str, Any] = Field(default_factory=dict)
    secret_names: tuple[str, ...] = ()
    secrets_sealed: str | None = Field(default=None, repr=False)  # Fernet token, app/secrets.py


class Usage(BaseModel):
    steps: int = 0
    llm_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0


class TaskResult(BaseModel):
    answer: str | None = None
    success: bool = False


class Event(BaseModel):
    """One step event; `seq` is strictly increasing per task and is the SSE `id:`."""

    id: str
    task_id: str
    seq: int
    ts: datetime
    type: str
    data: dict[str, Any] = Field(default_factory=dict)
