"""Aggregate MiniWoB++ episodes into per-task figures: a terminal table and JSON for tooling."""

from __future__ import annotations

import json
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table


class Outcome(StrEnum):
    """How an episode ended, judged by MiniWoB's own reward first, then by the agent."""

    success = "success"  # episode done with raw reward > 0
    wrong_answer = "wrong_answer"  # episode done with raw reward <= 0
    gave_up = "gave_up"  # agent finished (done(success=false) or otherwise) with episode open
    timeout = "timeout"  # the agent's own budget: deadline or max_steps
    episode_timeout = "episode_timeout"  # MiniWoB's EPISODE_MAX_TIME fired (--keep-timer only)
    error = "error"  # exception, LLM or browser failure


FAILURES: tuple[Outcome, ...] = tuple(o for o in Outcome if o is not Outcome.success)


@dataclass(frozen=True)
class EpisodeResult:
    task: str
    episode: int
    seed: int
    utterance: str
    outcome: Outcome
    raw_reward: float
    reward: float
    reward_reason: str | None
    steps: int
    llm_calls: int
    input_tokens: int
    output_tokens: int
    wall_s: float
    agent_status: str
    agent_error: str | None = None
    agent_reason: str = ""
    error: str | None = None
    action_s: tuple[float, ...] = ()  # tool-layer seconds per action (a bulk call split evenly)


@dataclass(frozen=True)
class TaskSummary:
    task: str
    episodes: int
    success_rate: float
    mean_steps: float
    llm_calls: int
    input_tokens: int
    output_tokens: int
    wall_s: float
    failures: Mapping[str, int]
    actions: int = 0
    median_action_s: float | None = None  # median tool-layer time per action


@dataclass(frozen=True)
class RunConfig:
    """Everything needed to repeat the run; printed above the table and kept in the JSON."""

    agent: str
    model: str
    llm_base_url: str
    observation_mode: str  # what the agent observed each step ("full" for the naive baseline)
    suite: str | None
    tasks: tuple[str, ...]
    episodes: int
    seed: int
    concurrency: int
    max_steps: int
    timeout_s: float
    episode_timer: str  # "lifted" or "kept"
    miniwob_version: str
    started_at: str
    worker_vision: bool = False  # the Worker got the Set-of-Mark screenshot each changed step
    vision_model: bool = False  # role "vision" available (look tool)


@dataclass(frozen=True)
class BenchReport:
    config: RunConfig
    tasks: tuple[TaskSummary, ...]
    overall: TaskSummary
    episodes: tuple[EpisodeResult, ...] = field(default=())

    def to_dict(self) -> dict[str, Any]:
        return {
            "benchmark": "miniwob",
            "config": asdict(self.config),
            "overall": asdict(self.overall),
            "tasks": [asdict(t) for t in self.tasks],
            "episodes": [asdict(e) for e in self.episodes],
        }

    def write_json(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_dict(), indent=2) + "\n", encoding="utf-8")


def summarize(task: str, results: Sequence[EpisodeResult]) -> TaskSummary:
    """Success rate, mean steps and totals over a task's episodes (or over all of them)."""
    n = len(results)
    failures = {o.value: sum(1 for r in results if r.outcome is o) for o in FAILURES}
    times = [t for r in results for t in r.action_s]
    return TaskSummary(
        task=task,
        episodes=n,
        success_rate=(sum(1 for r in results if r.outcome is Outcome.success) / n) if n else 0.0,
        mean_steps=(sum(r.steps for r in results) / n) if n else 0.0,
        llm_calls=sum(r.llm_calls for r in results),
        input_tokens=sum(r.input_tokens for r in results),
        output_tokens=sum(r.output_tokens for r in results),
        wall_s=round(sum(r.wall_s for r in results), 3),
        failures={k: v for k, v in failures.items() if v},
        actions=len(times),
        median_action_s=round(statistics.median(times), 3) if times else None,
    )


def build_report(config: RunConfig, results: Sequence[EpisodeResult]) -> BenchReport:
    """Per-task summaries in the order the tasks were asked for, plus the overall row."""
    ordered = sorted(results, key=lambda r: (config.tasks.index(r.task), r.episode))
    per_task = tuple(
        summarize(t, [r for r in ordered if r.task == t])
        for t in config.tasks
        if any(r.task == t for r in ordered)
    )
    return BenchReport(
        config=config,
        tasks=per_task,
        overall=summarize("ALL", ordered),
        episodes=tuple(ordered),
    )


def _failures_cell(failures: Mapping[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in failures.items()) or "-"


def _row(s: TaskSummary) -> list[str]:
    return [
        s.task,
        str(s.episodes),
        f"{100 * s.success_rate:.1f}%",
        f"{s.mean_steps:.1f}",
        str(s.llm_calls),
        str(s.input_tokens),
        str(s.output_tokens),
        f"{s.wall_s:.1f}",
        "-" if s.median_action_s is None else f"{s.median_action_s:.2f}",
        _failures_cell(s.failures),
    ]


def render_table(report: BenchReport) -> Table:
    cfg = report.config
    title = (
        f"MiniWoB++ | agent={cfg.agent} model={cfg.model} | episodes/task={cfg.episodes} "
        f"seed={cfg.seed} max_steps={cfg.max_steps} | episode timer {cfg.episode_timer}"
    )
    table = Table(title=title, show_footer=False)
    for name, justify in (
        ("task", "left"),
        ("eps", "right"),
        ("success", "right"),
        ("steps", "right"),
        ("llm calls", "right"),
        ("in tok", "right"),
        ("out tok", "right"),
        ("wall s", "right"),
        ("s/action", "right"),
        ("failures", "left"),
    ):
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    for summary in report.tasks:
        table.add_row(*_row(summary))
    table.add_section()
    table.add_row(*_row(report.overall), style="bold")
    return table


def print_report(report: BenchReport, console: Console | None = None) -> None:
    (console or Console()).print(render_table(report))
