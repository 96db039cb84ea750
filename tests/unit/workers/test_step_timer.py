"""StepTimer: webagent_step_duration_seconds is recorded from the event stream a sink emits."""

from __future__ import annotations

import pytest

from app import metrics
from app.contracts import EventType
from workers.adapters import sink
from workers.adapters.sink import StepTimer

COUNT = "webagent_step_duration_seconds_count"


def count(action: str) -> float:
    return metrics.sample_value(COUNT, {"action": action})


def test_each_executed_action_is_observed() -> None:
    before = {a: count(a) for a in ("navigate", "type", "click", "done", "none", "invalid")}
    timer = StepTimer()
    timer.saw(EventType.task_started, {})
    timer.saw(EventType.action_executed, {"step": 0, "action": "navigate"})  # before step 1
    timer.saw(EventType.step_started, {"step": 1})
    timer.saw(EventType.action_executed, {"step": 1, "action": "type"})
    timer.saw(EventType.action_executed, {"step": 1, "action": "click"})
    timer.saw(EventType.step_started, {"step": 2})  # a step without any action (nudged)
    timer.saw(EventType.step_started, {"step": 3})
    timer.saw(EventType.action_executed, {"step": 3, "action": "no such tool from the model"})
    timer.saw(EventType.step_started, {"step": 4})
    timer.saw(EventType.action_executed, {"step": 4, "action": "done"})
    timer.saw(EventType.task_finished, {"status": "succeeded"})
    timer.saw(EventType.task_finished, {"status": "succeeded"})  # nothing open: no sample

    after = {a: count(a) for a in before}
    assert {a: after[a] - before[a] for a in before} == {
        "navigate": 0,  # the start page is opened before step 1: not a step
        "type": 1,
        "click": 1,
        "done": 1,
        "none": 1,
        "invalid": 1,
    }


def test_durations_split_a_step_between_its_actions(monkeypatch: pytest.MonkeyPatch) -> None:
    """First action: step start → its end (observe + LLM + act); later ones: their own span."""
    clock = iter([10.0, 13.5, 14.0, 20.0, 21.0, 30.0])
    seen: list[tuple[str, float]] = []
    monkeypatch.setattr(sink.metrics, "observe_step", lambda a, s: seen.append((a, s)))
    timer = StepTimer(clock=lambda: next(clock))
    timer.saw(EventType.step_started, {"step": 1})  # 10.0
    timer.saw(EventType.action_executed, {"step": 1, "action": "type"})  # 13.5
    timer.saw(EventType.action_executed, {"step": 1, "action": "click"})  # 14.0
    timer.saw(EventType.step_started, {"step": 2})  # 20.0: step 1 already fully recorded
    timer.saw(EventType.action_executed, {"step": 2, "action": "done"})  # 21.0
    timer.saw(EventType.task_finished, {"status": "succeeded"})  # 30.0
    assert seen == [("type", 3.5), ("click", 0.5), ("done", 1.0)]
