"""Issue 8 acceptance on MiniWoB++: does the action layer carry out decisions derived from the page?

The scripted model (tests/support/miniwob_policies.py and the modules it uses) reads only the
prompt and decides what a correct agent would; the real agent loop and tool layer carry it out
on the real task pages. Every task the policies know (`DECISION_TASKS` + `POINTER_TASKS`) runs
for several seeds, once with humanized input (WEBAGENT_HUMANIZE=true, the default) and once
without. Printed per task: share of episodes completed (MiniWoB raw reward > 0), and the median
tool-layer time per action (a bulk call's time split over its actions).

Run: .venv/bin/python bench/miniwob_actions.py [--episodes 3] [--seed 0] [--tasks a,b]
     [--humanize both|on|off] [--out results.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.settings import Settings  # noqa: E402
from bench.support import machine  # noqa: E402
from tests.support.llm_server import ScriptedLLMServer  # noqa: E402
from tests.support.miniwob_policies import (  # noqa: E402
    DECISION_TASKS,
    POINTER_TASKS,
    miniwob_policy,
)
from workers.bench.miniwob import BenchOptions, run_benchmark  # noqa: E402
from workers.bench.report import BenchReport, EpisodeResult, Outcome  # noqa: E402


def _run(tasks: tuple[str, ...], args: argparse.Namespace, humanize: bool) -> BenchReport:
    with ScriptedLLMServer(miniwob_policy) as llm:
        settings = Settings(
            llm_base_url=llm.base_url, llm_model="scripted-model", llm_max_retries=0,
            humanize=humanize,
        )  # fmt: skip
        options = BenchOptions(tasks=tasks, episodes=args.episodes, seed=args.seed)
        return asyncio.run(run_benchmark(options, settings, on_episode=_progress))


def _progress(e: EpisodeResult) -> None:
    times = f"{statistics.median(e.action_s):.2f}" if e.action_s else "-"
    print(f"{e.task} seed {e.seed}: {e.outcome.value}, {times} s/action", file=sys.stderr)


def _median(report: BenchReport) -> float:
    times = [t for e in report.episodes for t in e.action_s]
    return statistics.median(times) if times else float("nan")


def _print(reports: dict[str, BenchReport], tasks: tuple[str, ...]) -> None:
    modes = list(reports)
    head = " | ".join(f"done ({m}) | s/action ({m})" for m in modes)
    print(f"| task | {head} |")
    print("|---|" + "---|---|" * len(modes))
    for task in tasks:
        cells = []
        for mode in modes:
            summary = next(s for s in reports[mode].tasks if s.task == task)
            done = round(summary.success_rate * summary.episodes)
            median = summary.median_action_s
            cells.append(f"{done}/{summary.episodes} | {median if median is not None else '-'}")
        print(f"| {task} | {' | '.join(cells)} |")
    for mode, report in reports.items():
        o = report.overall
        failed = [
            (e.task, e.seed, e.outcome.value, e.agent_reason[:80])
            for e in report.episodes
            if e.outcome is not Outcome.success
        ]
        tasks_done = sum(1 for s in report.tasks if s.success_rate == 1.0)
        print(
            f"humanize {mode}: {round(o.success_rate * o.episodes)}/{o.episodes} episodes, "
            f"{tasks_done}/{len(report.tasks)} tasks complete in every episode, "
            f"{o.actions} actions, median {_median(report):.3f} s/action, wall {o.wall_s:.0f} s"
        )
        for item in failed:
            print("  failed:", item)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tasks", default="")
    parser.add_argument("--humanize", choices=("both", "on", "off"), default="both")
    parser.add_argument("--out", default="")
    args = parser.parse_args()
    tasks = tuple(t for t in args.tasks.split(",") if t) or DECISION_TASKS + POINTER_TASKS
    modes = {"both": ("on", "off"), "on": ("on",), "off": ("off",)}[args.humanize]
    reports = {}
    for mode in modes:
        reports[mode] = _run(tasks, args, mode == "on")
        if args.out:  # each mode saved as soon as it is done
            data = {m: r.to_dict() for m, r in reports.items()}
            Path(args.out).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"machine: {machine()}  tasks: {len(tasks)} x {args.episodes} seeds from {args.seed}")
    _print(reports, tasks)


if __name__ == "__main__":
    main()
