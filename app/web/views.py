"""What the viewer's templates show of a task row: plain, pre-formatted values."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from app.contracts import TaskStatus
from app.db.types import as_utc

INSTRUCTION_PREVIEW = 140


@dataclass(frozen=True)
class RunRow:
    """One run as the list and the run page's header show it."""

    id: str
    status: str
    terminal: bool
    instruction: str
    preview: str
    start_url: str | None
    domain: str | None
    steps: int
    max_steps: int
    llm_calls: int
    tokens: int
    input_tokens: int
    output_tokens: int
    cost: str
    duration: str
    created: str
    created_iso: str
    answer: str | None
    success: bool
    error: str | None
    error_detail: str | None


def format_duration(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, rest = divmod(int(seconds), 60)
    if minutes < 60:
        return f"{minutes} min {rest:02d} s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours} h {minutes:02d} min"


def format_cost(value: Any) -> str:
    """US dollars when the service priced the run, else a dash."""
    if value is None:
        return "—"
    try:
        return f"${float(value):.4f}"
    except (TypeError, ValueError):
        return "—"


def _duration(task: Any, now: datetime) -> float | None:
    if task.started_at is None:
        return None
    end = as_utc(task.finished_at) if task.finished_at is not None else now
    return max(0.0, (end - as_utc(task.started_at)).total_seconds())


def _preview(text: str) -> str:
    flat = " ".join(text.split())
    if len(flat) <= INSTRUCTION_PREVIEW:
        return flat
    return flat[: INSTRUCTION_PREVIEW - 1] + "…"


def run_row(task: Any, cost_usd: float | None = None, now: datetime | None = None) -> RunRow:
    """Task ORM row → RunRow; `cost_usd` from app/web/pricing.py (None: unknown)."""
    clock = now or datetime.now(UTC)
    created = as_utc(task.created_at)
    input_tokens, output_tokens = task.input_tokens or 0, task.output_tokens or 0
    return RunRow(
        id=task.id,
        status=str(task.status),
        terminal=TaskStatus(task.status).terminal,
        instruction=task.instruction,
        preview=_preview(task.instruction),
        start_url=task.start_url,
        domain=task.domain,
        steps=task.steps or 0,
        max_steps=task.max_steps,
        llm_calls=task.llm_calls or 0,
        tokens=input_tokens + output_tokens,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        cost=format_cost(cost_usd),
        duration=format_duration(_duration(task, clock)),
        created=created.strftime("%Y-%m-%d %H:%M:%S UTC"),
        created_iso=created.isoformat(),
        answer=task.answer,
        success=bool(task.success),
        error=task.error,
        error_detail=task.error_detail,
    )


STATUS_CHOICES: tuple[str, ...] = tuple(s.value for s in TaskStatus)
