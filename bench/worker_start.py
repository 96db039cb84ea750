"""Cold worker start: from spawning `webagent worker` to its first task started and finished.

Production deployment as in bench/load.py (scratch Postgres, the Redis DB named by --redis,
flushed before and after, the scripted model answering after --latency s, the local site).
One task is queued before the worker is spawned; each run spawns `webagent worker
--concurrency 1`, waits for that task to finish and stops the worker.

  first task started / finished   task started_at / finished_at minus the spawn time
  imports                         `python -X importtime` of what each process imports:
                                  the supervisor (CLI + workers.process.supervisor) and a worker
                                  before its first task ends (workers.process.supervisor +
                                  workers.jobs); total and self time by top-level package

With --baseline DIR (an older tree: `git archive REV app workers | tar -x -C DIR`), runs
alternate between that tree and this one under the same load: the baseline runs with
`python -S` and PYTHONPATH=DIR:site-packages, so the editable install does not shadow it.

Run: .venv/bin/python bench/worker_start.py [--runs 3] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import re
import statistics
import subprocess
import sys
import sysconfig
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import redis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.db import create_engine, repositories, session_factory  # noqa: E402
from app.dispatch import RqDispatcher  # noqa: E402
from bench.load import deployment, spawn_worker, worker_env  # noqa: E402
from bench.support import free_port, machine  # noqa: E402
from tests.integration.workers.conftest import new_task  # noqa: E402

PROCESS_IMPORTS = {
    "supervisor": ["workers.cli.commands.service", "workers.process.supervisor"],
    "worker": ["workers.process.supervisor", "workers.jobs"],
}
_ROW = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")


@dataclasses.dataclass(frozen=True)
class Tree:
    """Which code a run imports: this checkout, or a baseline directory."""

    name: str
    python: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: Path = ROOT

    @classmethod
    def baseline(cls, directory: Path) -> Tree:
        path = f"{directory}{os.pathsep}{sysconfig.get_paths()['purelib']}"
        return cls("baseline", (sys.executable, "-S"), (("PYTHONPATH", path),), directory)


def import_profile(modules: list[str], tree: Tree, top: int = 8) -> dict[str, Any]:
    """Total import time of `modules` in a fresh interpreter, and self time by package."""
    code = "import " + ", ".join(modules)
    out = subprocess.run(
        [*(tree.python or (sys.executable,)), "-X", "importtime", "-c", code],
        capture_output=True,
        text=True,
        check=True,
        cwd=tree.cwd,
        env={**os.environ, **dict(tree.env)},
    ).stderr
    total_us = 0
    by_package: Counter[str] = Counter()
    for line in out.splitlines():
        row = _ROW.match(line)
        if row is None:
            continue
        self_us, cumulative_us, indent, name = row.groups()
        by_package[name.split(".")[0]] += int(self_us)
        if len(indent) == 1:  # a top-level import: its cumulative time counts once
            total_us += int(cumulative_us)
    return {
        "total_ms": round(total_us / 1000),
        "self_ms_by_package": {k: round(v / 1000) for k, v in by_package.most_common(top)},
    }


async def _queue_one(db: str, redis_url: str, url: str) -> str:
    engine = create_engine(db)
    dispatcher = RqDispatcher(redis_url)
    try:
        task_id = await new_task(
            session_factory(engine), instruction="report the shop", start_url=url, max_steps=3
        )
        await dispatcher.enqueue(task_id, timeout_s=120)
        return task_id
    finally:
        dispatcher.close()
        await engine.dispose()


async def _finished(db: str, task_id: str, timeout: float) -> Any:
    engine = create_engine(db)
    sessions = session_factory(engine)
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            async with sessions() as s:
                task = await repositories.get_task(s, task_id=task_id)
            if task is not None and task.finished_at is not None:
                return task
            await asyncio.sleep(0.1)
        raise TimeoutError(f"task {task_id} did not finish in {timeout:.0f} s")
    finally:
        await engine.dispose()


def cold_start(
    tree: Tree, env: dict[str, str], db: str, redis_url: str, url: str, log: Path
) -> dict[str, Any]:
    """One run: queue a task, spawn the worker, time its first task, stop the worker."""
    task_id = asyncio.run(_queue_one(db, redis_url, url))
    with open(log, "ab") as out:
        spawned = time.time()
        proc = spawn_worker({**env, **dict(tree.env)}, 1, out, tree.python, tree.cwd)
        try:
            task = asyncio.run(_finished(db, task_id, 300))
        finally:
            proc.terminate()
            proc.wait(60)
    return {
        "status": task.status,
        "started_s": round(task.started_at.timestamp() - spawned, 2),
        "finished_s": round(task.finished_at.timestamp() - spawned, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/13")
    parser.add_argument("--chromium", default=os.environ.get("WEBAGENT_CHROMIUM_PATH", ""))
    parser.add_argument("--baseline", type=Path, help="an older app/ + workers/ tree")
    args = parser.parse_args()
    trees = [Tree("current")] + ([Tree.baseline(args.baseline)] if args.baseline else [])
    load_before = round(os.getloadavg()[0], 1)
    imports = {
        f"{tree.name} {process}": import_profile(mods, tree)
        for tree in trees
        for process, mods in PROCESS_IMPORTS.items()
    }
    r = redis.Redis.from_url(args.redis)
    r.flushdb()
    runs: dict[str, list[dict[str, Any]]] = {tree.name: [] for tree in trees}
    with deployment(args.latency) as (db, llm_url, site, data):
        chromium = args.chromium or "/usr/bin/chromium"
        env = worker_env(db, args.redis, llm_url, chromium, free_port(), data)
        try:
            for _ in range(args.runs):
                for tree in trees:
                    log = Path(data) / "worker.log"
                    runs[tree.name].append(
                        cold_start(tree, env, db, args.redis, site.url("/"), log)
                    )
        finally:
            r.flushdb()
    out = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "load": [load_before, round(os.getloadavg()[0], 1)],
        "runs": runs,
        "median_s": {
            name: {
                "started": statistics.median(r["started_s"] for r in rs),
                "finished": statistics.median(r["finished_s"] for r in rs),
            }
            for name, rs in runs.items()
        },
        "imports": imports,
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
