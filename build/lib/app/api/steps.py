"""Assemble per-step views from persisted events (grouped by data["step"])."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from app.api.schemas import EventOut, StepOut
from app.contracts import EventType
from app.events import event_from_row

STEP_EVENT_TYPES = frozenset(
    {EventType.step_started, EventType.action_executed, EventType.observation}
)


def screenshot_url(task_id: str, step: int) -> str:
    return f"/v1/tasks/{task_id}/screenshots/{step}"


def _step_number(data: dict[str, Any]) -> int | None:
    value = data.get("step")
    if isinstance(value, bool) or not isinstance(value, int | str):
        return None
    try:
        return int(value)
    except ValueError:
        return None


def build_steps(task_id: str, rows: Iterable[Any], screenshot_steps: set[int]) -> list[StepOut]:
    """One StepOut per step number, in step order; the last action/observation of a step wins."""
    steps: dict[int, StepOut] = {}
    for row in rows:
        event = event_from_row(row)
        if event.type not in STEP_EVENT_TYPES:
            continue
        number = _step_number(event.data)
        if number is None:
            continue
        step = steps.get(number)
        if step is None:
            step = StepOut(
                step=number,
                started_at=None,
                events=[],
                action=None,
                observation=None,
                screenshot_url=screenshot_url(task_id, number)
                if number in screenshot_steps
                else None,
            )
            steps[number] = step
        step.events.append(EventOut(**event.model_dump()))
        if event.type == EventType.step_started and step.started_at is None:
            step.started_at = event.ts
        elif event.type == EventType.action_executed:
            step.action = event.data
        elif event.type == EventType.observation:
            step.observation = event.data
    return [steps[n] for n in sorted(steps)]
