"""A repeated task on one site: run 1 learns, run 2 replays its proven route (issue 21).

The local kettle shop of tests/support/route_shop.py (a consent dialog, a filter form with a
compound dropdown, a list, a product page), the production job path (`workers.jobs.execute`
on a WorkerRuntime, SQLite file or --db), the scripted LLM server of the tests answering
each Worker call after `--latency` seconds (tests/support/route_shop.py `policy`, by element
names; the Planner's and summarizer's default answers). Three tasks, run in order on a fresh
database:

  run 1   colour red, "Aurora", 1.7 L, Berlin: no route yet, the model decides every step
  run 2   colour blue, "Nimbus", 1.7 L, Paris: the same intent with other values (replay)
  run 3   colour green, "Fern", 1.2 L, Rome, with reuse_routes=false (the model again)

Printed per run: status, answer, model calls (llm.call events), steps, tokens (the scripted
server's estimate: characters / 4, tests/support/llm_server.py) and wall time of the job;
and run 2's calls as a share of run 1's.

With `--llm-base-url` (and `--model`, `--llm-timeout`) the runs ask that model instead of
the scripted server, on three tasks, each a pair on a fresh database: run 1, then run 2 of
the same task with other values (`TASKS`: the delivery quote above, a price look-up, a count
of filtered kettles). Tokens are then the model server's usage figures.

Run: .venv/bin/python bench/memory_repeat.py [--latency 0.5] [--db URL]
     .venv/bin/python bench/memory_repeat.py --llm-base-url URL --model NAME [--llm-timeout S]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.db import repositories  # noqa: E402
from app.db.migrate import upgrade  # noqa: E402
from app.events import MemoryEventBus  # noqa: E402
from app.settings import Settings  # noqa: E402
from bench.support import machine  # noqa: E402
from tests.support.llm_server import Reply, ScriptedLLMServer  # noqa: E402
from tests.support.route_shop import ShopServer, instruction, policy  # noqa: E402
from workers import jobs  # noqa: E402
from workers.process.runtime import WorkerRuntime  # noqa: E402

RUNS = (
    ("run 1 (learns)", ("red", "Aurora", "1.7 L", "Berlin"), True),
    ("run 2 (replays)", ("blue", "Nimbus", "1.7 L", "Paris"), True),
    ("run 3 (reuse_routes=false)", ("green", "Fern", "1.2 L", "Rome"), False),
)


TASKS: dict[str, tuple[str, str]] = {
    "quote": (
        instruction("red", "Aurora", "1.7 L", "Berlin"),
        instruction("blue", "Nimbus", "1.7 L", "Paris"),
    ),
    "price": (
        'In the kettle shop, filter colour blue, open the "Tide" kettle, choose size 1.2 L '
        "and report its price",
        'In the kettle shop, filter colour green, open the "Fern" kettle, choose size 1.7 L '
        "and report its price",
    ),
    "count": (
        "In the kettle shop, filter colour red and in stock only and report how many kettles "
        "are listed",
        "In the kettle shop, filter colour blue and in stock only and report how many kettles "
        "are listed",
    ),
}


class Switch:
    """The server's policy, switched per run, answering after `latency` seconds."""

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.current = policy(*RUNS[0][1])

    def __call__(self, request: dict[str, Any]) -> Reply:
        time.sleep(self.latency)
        return self.current(request)


async def one_run(
    rt: WorkerRuntime, url: str, text: str, reuse: bool, timeout_s: int = 300
) -> dict[str, Any]:
    async with rt.sessions() as s:
        task, _ = await repositories.create_task(
            s,
            tenant_id="default",
            instruction=text,
            start_url=url,
            max_steps=20,
            timeout_s=timeout_s,
            allowed_domains=(),
            metadata={},
            task_policy={"reuse_routes": reuse},
        )
        await s.commit()
    claimed = await jobs._claim(rt, task.id)
    assert claimed is not None
    started = time.monotonic()
    await jobs.execute(rt, claimed)
    wall = time.monotonic() - started
    async with rt.sessions() as s:
        rows = await repositories.list_events(s, task_id=task.id)
        final = await repositories.get_task(s, task_id=task.id)
    assert final is not None
    calls = [r.data for r in rows if r.type == "llm.call"]
    replays = [r.data for r in rows if r.type == "route.replayed"]
    return {
        "status": final.status,
        "answer": final.answer,
        "model_calls": len(calls),
        "steps": final.steps,
        "tokens": sum(
            int(c.get("input_tokens", 0)) + int(c.get("output_tokens", 0)) for c in calls
        ),
        "time_s": round(wall, 2),
        "replayed_steps": len(replays[0]["replayed_steps"]) if replays else 0,
    }


def _settings(args: argparse.Namespace, db: str, data: str, base_url: str) -> Settings:
    model = {"llm_model": args.model} if args.model else {}
    return Settings(
        chromium_path=args.chromium,
        database_url=db,
        llm_base_url=base_url,
        llm_max_retries=0,
        llm_timeout_s=args.llm_timeout,
        allow_private_networks=True,
        data_dir=data,
        **model,
    )


async def model_runs(args: argparse.Namespace) -> dict[str, Any]:
    """Each task of `args.tasks` as a pair (run 1, run 2) on its own fresh database, asking
    the model at `args.llm_base_url`."""
    shop = ShopServer()
    results: dict[str, Any] = {}
    try:
        for name in args.tasks.split(","):
            with tempfile.TemporaryDirectory() as data:
                db = f"sqlite+aiosqlite:///{data}/bench.db"
                upgrade(db)
                rt = WorkerRuntime(_settings(args, db, data, args.llm_base_url), MemoryEventBus())
                await asyncio.to_thread(rt.start)
                try:
                    for run, text in enumerate(TASKS[name], start=1):

                        def job(t: str = text, r: WorkerRuntime = rt) -> Any:
                            return one_run(r, f"{shop.base_url}/", t, True, 3600)

                        outcome = await asyncio.to_thread(rt.run, job, 3700)
                        results[f"{name} run {run}"] = {"instruction": text, **outcome}
                        print(json.dumps({f"{name} run {run}": outcome}), flush=True)
                finally:
                    await asyncio.to_thread(rt.stop)
    finally:
        shop.close()
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "model": args.model,
        "runs": results,
    }


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    if args.llm_base_url:
        return await model_runs(args)
    switch = Switch(args.latency)
    shop = ShopServer()
    try:
        with ScriptedLLMServer(switch) as llm, tempfile.TemporaryDirectory() as data:
            db = args.db or f"sqlite+aiosqlite:///{data}/bench.db"
            upgrade(db)
            rt = WorkerRuntime(_settings(args, db, data, llm.base_url), MemoryEventBus())
            await asyncio.to_thread(rt.start)
            results: dict[str, Any] = {}
            try:
                for name, values, reuse in RUNS:
                    switch.current = policy(*values)
                    text = instruction(*values)

                    def job(t: str = text, r: bool = reuse) -> Any:
                        return one_run(rt, f"{shop.base_url}/", t, r)

                    results[name] = await asyncio.to_thread(rt.run, job, 400)
            finally:
                await asyncio.to_thread(rt.stop)
    finally:
        shop.close()
    one, two = results[RUNS[0][0]], results[RUNS[1][0]]
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "load": round(os.getloadavg()[0], 2),
        "latency_s": args.latency,
        "runs": results,
        "run2_calls_share_of_run1": round(two["model_calls"] / one["model_calls"], 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.5, help="seconds per model call")
    parser.add_argument("--db", default="", help="database URL (default: a SQLite file)")
    parser.add_argument("--llm-base-url", default="", help="ask this model, not the script")
    parser.add_argument("--model", default="", help="model name for --llm-base-url")
    parser.add_argument("--llm-timeout", type=float, default=180.0, help="seconds per call")
    parser.add_argument("--tasks", default=",".join(TASKS), help="with --llm-base-url")
    parser.add_argument("--chromium", default=os.environ.get("WEBAGENT_CHROMIUM_PATH", ""))
    args = parser.parse_args()
    args.chromium = args.chromium or "/usr/bin/chromium"
    print(json.dumps(asyncio.run(main_async(args)), indent=2))


if __name__ == "__main__":
    main()
