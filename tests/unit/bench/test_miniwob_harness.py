"""Pure parts of the MiniWoB++ harness: suites, outcome classification, aggregation, sink."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from app.contracts import ErrorCode, EventType, TaskStatus
from workers.agent.protocols import Action, AgentOutcome, Observation, ToolResult
from workers.bench.miniwob import EPISODE_OVER, BenchSink, EpisodeBrowser, EventLog, classify
from workers.bench.report import EpisodeResult, Outcome, RunConfig, build_report, render_table
from workers.bench.server import available_tasks
from workers.bench.suite import (
    ALL_TASKS,
    CORE_TASKS,
    EXCLUDED,
    SMOKE_TASKS,
    UnknownTask,
    resolve_tasks,
)
from workers.browser.observe.miniwob_page import EpisodeState


def _outcome(status: str, error: str | None = None) -> AgentOutcome:
    return AgentOutcome(
        answer=None, success=status == "succeeded", status=status, steps=3, llm_calls=3,
        input_tokens=10, output_tokens=2, error=error,
    )  # fmt: skip


def _state(done: bool, raw: float, reason: str | None = None) -> EpisodeState:
    return EpisodeState(done=done, reward=raw, raw_reward=raw, reason=reason, episode_id=1)


def test_core_suite_is_documented_and_free_of_real_time_tasks() -> None:
    pages = available_tasks()
    assert len(CORE_TASKS) >= 60
    assert set(ALL_TASKS) <= pages and set(EXCLUDED) <= pages
    for name in ("chase-circle", "moving-items", "simon-says", "hover-shape", "stock-market"):
        assert name not in CORE_TASKS and EXCLUDED[name].startswith("real-time")
    assert all(reason for reason in EXCLUDED.values())
    assert set(SMOKE_TASKS) <= set(CORE_TASKS)


def test_resolve_tasks_prefers_explicit_names_and_rejects_unknown() -> None:
    pages = available_tasks()
    assert resolve_tasks(suite="core", tasks=["click-link", " click-link"], available=pages) == (
        "click-link",
    )
    assert resolve_tasks(suite="smoke", tasks=None, available=pages) == SMOKE_TASKS
    with pytest.raises(UnknownTask):
        resolve_tasks(suite="nope", tasks=None, available=pages)
    with pytest.raises(UnknownTask):
        resolve_tasks(suite=None, tasks=["click-nothing"], available=pages)


@pytest.mark.parametrize(
    ("state", "outcome", "error", "expected"),
    [
        (_state(True, 1.0), _outcome("cancelled"), None, Outcome.success),
        (_state(True, 0.6), _outcome("failed", ErrorCode.max_steps), None, Outcome.success),
        (_state(True, -1.0), _outcome("cancelled"), None, Outcome.wrong_answer),
        (_state(True, -1.0, "timed out"), _outcome("cancelled"), None, Outcome.episode_timeout),
        (_state(False, 0.0), _outcome("timed_out", ErrorCode.timeout), None, Outcome.timeout),
        (_state(False, 0.0), _outcome("failed", ErrorCode.max_steps), None, Outcome.timeout),
        (_state(False, 0.0), _outcome("failed", ErrorCode.gave_up), None, Outcome.gave_up),
        (None, _outcome("succeeded"), None, Outcome.gave_up),
        (None, _outcome("failed", ErrorCode.llm_error), None, Outcome.error),
        (None, None, "RuntimeError: boom", Outcome.error),
        (_state(True, 1.0), None, "RuntimeError: after the reward", Outcome.success),
    ],
)
def test_classify(
    state: EpisodeState | None, outcome: AgentOutcome | None, error: str | None, expected: Outcome
) -> None:
    assert classify(state, outcome, error) is expected


def _result(task: str, episode: int, outcome: Outcome, steps: int) -> EpisodeResult:
    return EpisodeResult(
        task=task, episode=episode, seed=episode, utterance="u", outcome=outcome,
        raw_reward=1.0 if outcome is Outcome.success else -1.0, reward=0.0, reward_reason=None,
        steps=steps, llm_calls=steps + 1, input_tokens=100 * steps, output_tokens=10,
        wall_s=1.5, agent_status=TaskStatus.cancelled.value,
    )  # fmt: skip


def _config(tasks: tuple[str, ...]) -> RunConfig:
    return RunConfig(
        agent="webagent", model="m", llm_base_url="http://x/v1", observation_mode="compact",
        suite=None, tasks=tasks,
        episodes=2, seed=0, concurrency=1, max_steps=10, timeout_s=60.0,
        episode_timer="lifted", miniwob_version="1.1.0", started_at="t",
    )  # fmt: skip


def test_report_aggregates_per_task_in_requested_order(tmp_path: Path) -> None:
    results = [
        _result("b", 1, Outcome.wrong_answer, 4),
        _result("a", 0, Outcome.success, 2),
        _result("b", 0, Outcome.success, 2),
        _result("a", 1, Outcome.timeout, 10),
    ]
    report = build_report(_config(("b", "a")), results)
    assert [t.task for t in report.tasks] == ["b", "a"]
    b, a = report.tasks
    assert b.success_rate == 0.5 and b.mean_steps == 3.0 and b.failures == {"wrong_answer": 1}
    assert a.failures == {"timeout": 1} and a.llm_calls == 3 + 11
    assert report.overall.episodes == 4 and report.overall.success_rate == 0.5
    assert report.overall.input_tokens == 100 * (4 + 2 + 2 + 10)
    out = tmp_path / "r.json"
    report.write_json(out)
    data = json.loads(out.read_text())
    assert data["config"]["episode_timer"] == "lifted"
    assert data["overall"]["failures"] == {"wrong_answer": 1, "timeout": 1}
    assert [e["task"] for e in data["episodes"]] == ["b", "b", "a", "a"]
    assert render_table(report).row_count == 3


class _FakeInner:
    url = "http://127.0.0.1/miniwob/x.html"

    def __init__(self) -> None:
        self.executed: list[Action] = []

    async def goto(self, url: str) -> ToolResult:
        return ToolResult(success=True)

    async def observe(self, mode: str = "compact") -> Observation:
        return Observation(url=self.url, title="t", text="", version=1)

    async def execute(self, action: Action) -> ToolResult:
        self.executed.append(action)
        return ToolResult(success=True)

    async def screenshot(self) -> bytes:
        return b""


class _FakePage:
    def __init__(self, states: list[EpisodeState]) -> None:
        self.states = states

    async def state(self) -> EpisodeState:
        return self.states.pop(0)


async def test_episode_browser_stops_the_loop_once_the_episode_is_done(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.jsonl")
    sink = BenchSink("click-button", 0, log)
    inner = _FakeInner()
    page = _FakePage([_state(False, 0.0), _state(True, 1.0)])
    browser = EpisodeBrowser(inner, page, sink)  # type: ignore[arg-type]
    assert (await browser.execute(Action("click", {"ref": "1:1"}))).success
    assert not await sink.cancel_requested()
    assert (await browser.execute(Action("click", {"ref": "1:2"}))).success
    assert await sink.cancel_requested()
    refused = await browser.execute(Action("click", {"ref": "1:3"}))
    assert not refused.success and refused.error == EPISODE_OVER
    assert len(inner.executed) == 2 and browser.final is not None
    await sink.emit(EventType.step_started, {"step": 1})
    await sink.emit(EventType.llm_call, {"input_tokens": 7, "output_tokens": 3})
    assert (sink.steps, sink.llm_calls, sink.input_tokens, sink.output_tokens) == (1, 1, 7, 3)
    lines = (tmp_path / "events.jsonl").read_text().splitlines()
    assert json.loads(lines[1])["data"]["input_tokens"] == 7


def test_action_times_split_a_bulk_call_and_give_a_median_per_task() -> None:
    sink = BenchSink("login-user", 0)
    sink.time_actions(Action("click", {"ref": "1:1"}), 0.5)
    bulk = [{"tool": "type", "ref": "1:2", "text": "x"}] * 3
    sink.time_actions(Action("bulk", {"actions": bulk}), 1.5)
    sink.time_actions(Action("bulk", {"actions": []}), 0.9)  # refused by validation: one call
    sink.time_actions(Action("dom_search", {"selector": "li"}), 0.1)  # a read, not an action
    mixed = [{"tool": "drag", "x": 1, "y": 2}, {"tool": "dom_search", "selector": "li"}]
    sink.time_actions(Action("bulk", {"actions": mixed}), 0.3)
    assert sink.action_s == [0.5, 0.5, 0.5, 0.5, 0.9, 0.3]
    timed = replace(_result("a", 0, Outcome.success, 2), action_s=(0.2, 0.4, 0.9))
    untimed = _result("a", 1, Outcome.success, 1)
    (summary,) = build_report(_config(("a",)), [timed, untimed]).tasks
    assert summary.actions == 3 and summary.median_action_s == 0.4
    assert build_report(_config(("a",)), [untimed]).overall.median_action_s is None
