"""Pure helpers of the API: step grouping, resume point, request hashing, body validation."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pytest
from fastapi.exceptions import RequestValidationError
from pydantic import ValidationError

from app.api.admission import request_hash
from app.api.events import _resume_point
from app.api.schemas import TaskCreate
from app.api.steps import build_steps


@dataclass
class Row:
    seq: int
    type: str
    data: dict[str, Any] = field(default_factory=dict)
    id: str = "e"
    task_id: str = "t1"
    ts: datetime = field(default_factory=lambda: datetime(2024, 1, 1, tzinfo=UTC))


def test_build_steps_groups_by_step_number() -> None:
    rows = [
        Row(1, "task.started"),
        Row(2, "step.started", {"step": 2}),
        Row(3, "step.started", {"step": 1}),
        Row(4, "action.executed", {"step": 1, "name": "click"}),
        Row(5, "observation", {"step": "1", "url": "u"}),
        Row(6, "llm.call", {"step": 1}),
        Row(7, "observation", {"step": "x"}),
        Row(8, "action.executed", {"step": True}),
    ]
    steps = build_steps("t1", rows, {2})
    assert [s.step for s in steps] == [1, 2]
    assert steps[0].action == {"step": 1, "name": "click"}
    assert steps[0].observation == {"step": "1", "url": "u"}
    assert [e.seq for e in steps[0].events] == [3, 4, 5]
    assert steps[0].screenshot_url is None
    assert steps[1].screenshot_url == "/v1/tasks/t1/screenshots/2"
    assert steps[1].started_at is not None


def test_resume_point_prefers_the_later_of_header_and_query() -> None:
    assert _resume_point(None, None) == 0
    assert _resume_point("5", None) == 5
    assert _resume_point("5", 9) == 9
    for bad in ("not-a-number", "-4", "1e30", str(2**31)):  # a clear 422 naming the header
        with pytest.raises(RequestValidationError, match="last-event-id"):
            _resume_point(bad, 3)


def test_request_hash_is_stable_and_body_sensitive() -> None:
    a = TaskCreate(instruction="go", metadata={"b": 1, "a": 2})
    b = TaskCreate(instruction="go", metadata={"a": 2, "b": 1})
    c = TaskCreate(instruction="go", metadata={"a": 2, "b": 1}, max_steps=3)
    assert request_hash(a) == request_hash(b)
    assert request_hash(a) != request_hash(c)
    assert len(request_hash(a)) == 64


def test_task_create_normalises_domains_and_rejects_junk() -> None:
    body = TaskCreate(instruction="go", allowed_domains=[" Example.COM. "])
    assert body.allowed_domains == ["example.com"]
    with pytest.raises(ValidationError, match="allowed_domains"):
        TaskCreate(instruction="go", allowed_domains=["https://example.com/x"])
    with pytest.raises(ValidationError, match="metadata"):
        TaskCreate(instruction="go", metadata={"x": "y" * 17000})
