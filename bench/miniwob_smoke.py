"""MiniWoB++ webagent loop vs the naive baseline, same model, same episodes, one process.

With WEBAGENT_LLM_BASE_URL set this runs against that endpoint (a real model: the number
that matters). Without it, it runs the scripted test model, which only solves the smoke
tasks: then the figures measure harness overhead and prompt size, not agent quality.

Run: .venv/bin/python bench/miniwob_smoke.py [--suite smoke] [--episodes 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.settings import Settings  # noqa: E402
from bench.support import machine  # noqa: E402
from workers.bench.miniwob import BenchOptions, run_benchmark  # noqa: E402
from workers.bench.report import BenchReport  # noqa: E402
from workers.bench.server import available_tasks  # noqa: E402
from workers.bench.suite import resolve_tasks  # noqa: E402


def _run(agent: str, tasks: tuple[str, ...], episodes: int, settings: Settings) -> BenchReport:
    options = BenchOptions(tasks=tasks, episodes=episodes, agent=agent, seed=0)
    return asyncio.run(run_benchmark(options, settings))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="smoke")
    parser.add_argument("--episodes", type=int, default=3)
    args = parser.parse_args()
    tasks = tuple(resolve_tasks(suite=args.suite, tasks=None, available=available_tasks()))
    with ExitStack() as stack:
        if os.environ.get("WEBAGENT_LLM_BASE_URL"):
            settings, model = Settings(), "configured endpoint"
        else:
            from tests.support.llm_server import ScriptedLLMServer
            from tests.support.miniwob_policies import miniwob_policy

            llm = stack.enter_context(ScriptedLLMServer(miniwob_policy))
            settings = Settings(llm_base_url=llm.base_url, llm_model="scripted-model")
            model = "scripted test model (harness overhead only)"
        reports = {
            agent: _run(agent, tasks, args.episodes, settings) for agent in ("webagent", "naive")
        }
    print(f"machine: {machine()}  model: {model}  tasks: {len(tasks)} x {args.episodes}")
    print("| agent | success | mean steps | LLM calls | input tokens | output tokens | wall s |")
    print("|---|---|---|---|---|---|---|")
    for agent, report in reports.items():
        o = report.overall
        print(
            f"| {agent} | {o.success_rate:.1%} | {o.mean_steps:.2f} | {o.llm_calls} | "
            f"{o.input_tokens} | {o.output_tokens} | {o.wall_s:.1f} |"
        )
    ours, naive = reports["webagent"].overall, reports["naive"].overall
    if naive.input_tokens:
        print(f"input-token ratio webagent/naive: {ours.input_tokens / naive.input_tokens:.2f}")


if __name__ == "__main__":
    main()
