"""Load and soak: task throughput of 1 and N worker processes, queue-to-start, leaks.

Production deployment on this machine: a scratch Postgres database, the Redis DB named by
--redis (flushed before and after: give it a DB nobody else uses), `webagent worker
--concurrency N` as operators run it (its warm standby included), the scripted model server
(each model call answers after --latency seconds) and a local site. Tasks are inserted and
enqueued exactly like POST /v1/tasks does; each is one observe + one model call + done.

  throughput   tasks finished per second over the run (first enqueue to last finish)
  queue→start  started_at - queued_at of every task, p50 / p99
  soak         the worker process tree (worker + Chromium): open fds and RSS after the
               first 10% of tasks and at the end; /metrics scrape time at the end

Run: .venv/bin/python bench/load.py --workers 1 --tasks 100 [--rate 0.5] [--redis URL]
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import psutil
import redis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.db import create_engine, repositories, session_factory  # noqa: E402
from app.db.migrate import upgrade  # noqa: E402
from app.dispatch import RqDispatcher  # noqa: E402
from bench.support import free_port, machine, pct, scratch_postgres  # noqa: E402
from tests.integration.workers.test_jobs import read_home_policy  # noqa: E402
from tests.support.llm_server import ScriptedLLMServer  # noqa: E402
from tests.support.sites import TestSite  # noqa: E402

WEBAGENT = str(Path(sys.executable).with_name("webagent"))


def tree(pid: int) -> list[psutil.Process]:
    root = psutil.Process(pid)
    return [root, *root.children(recursive=True)]


def footprint(supervisor: int) -> dict[str, float]:
    """Open fds and RSS (MB) of the worker processes and their Chromium, not the supervisor."""
    fds = rss = 0
    for proc in tree(supervisor)[1:]:
        try:
            fds += proc.num_fds()
            rss += proc.memory_info().rss
        except psutil.Error:
            continue
    return {"fds": fds, "rss_mb": round(rss / 2**20, 1)}


def wait_metrics(port: int, proc: subprocess.Popen[bytes], timeout: float = 180) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "worker exited"
        try:
            if httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise TimeoutError("worker metrics never answered")


async def run_tasks(
    db: str, redis_url: str, url: str, n: int, rate: float, on_tenth: Any
) -> list[Any]:
    engine = create_engine(db)
    sessions = session_factory(engine)
    dispatcher = RqDispatcher(redis_url)
    ids = []
    try:
        for _ in range(n):
            async with sessions() as s:
                task, _ = await repositories.create_task(
                    s,
                    tenant_id="default",
                    instruction="report the shop on the start page",
                    start_url=url,
                    max_steps=3,
                    timeout_s=120,
                    allowed_domains=(),
                    metadata={},
                )
                await s.commit()
            await dispatcher.enqueue(task.id, timeout_s=120)
            ids.append(task.id)
            if rate > 0:
                await asyncio.sleep(1 / rate)
        pending, marked = set(ids), False
        while pending:
            await asyncio.sleep(0.5)
            async with sessions() as s:
                for task_id in list(pending):
                    task = await repositories.get_task(s, task_id=task_id)
                    if task is not None and task.finished_at is not None:
                        pending.discard(task_id)
            if not marked and len(pending) <= n * 0.9:
                on_tenth()
                marked = True
        async with sessions() as s:
            return [await repositories.get_task(s, task_id=i) for i in ids]
    finally:
        dispatcher.close()
        await engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--tasks", type=int, default=100)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--rate", type=float, default=0.0, help="enqueues/s (0: all at once)")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/12")
    parser.add_argument("--chromium", default=os.environ.get("WEBAGENT_CHROMIUM_PATH", ""))
    args = parser.parse_args()
    chromium = args.chromium or "/usr/bin/chromium"
    r = redis.Redis.from_url(args.redis)
    r.flushdb()

    def policy(request: dict[str, Any]) -> Any:
        return dataclasses.replace(read_home_policy(request), delay_s=args.latency)

    with (
        scratch_postgres() as db,
        ScriptedLLMServer(policy) as llm,
        TestSite() as site,
        tempfile.TemporaryDirectory() as data,
    ):
        upgrade(db)
        port = free_port()
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("WEBAGENT_")},
            "WEBAGENT_DATABASE_URL": db,
            "WEBAGENT_REDIS_URL": args.redis,
            "WEBAGENT_LLM_BASE_URL": llm.base_url,
            "WEBAGENT_CHROMIUM_PATH": chromium,
            "WEBAGENT_ALLOW_PRIVATE_NETWORKS": "true",
            "WEBAGENT_WORKER_METRICS_PORT": str(port),
            "WEBAGENT_DATA_DIR": data,
            "WEBAGENT_LOG_LEVEL": "WARNING",
        }
        log = open(Path(data) / "worker.log", "wb")  # noqa: SIM115 - closed below
        proc = subprocess.Popen(
            [WEBAGENT, "worker", "--concurrency", str(args.workers), "--grace", "30"],
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        try:
            for i in range(args.workers):
                wait_metrics(port + i, proc)
            early: dict[str, float] = {}
            started = time.monotonic()
            tasks = asyncio.run(
                run_tasks(
                    db,
                    args.redis,
                    site.url("/"),
                    args.tasks,
                    args.rate,
                    lambda: early.update(footprint(proc.pid)),
                )
            )
            elapsed = time.monotonic() - started
            late = footprint(proc.pid)
            t0 = time.perf_counter()
            httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10)
            scrape_ms = (time.perf_counter() - t0) * 1000
        finally:
            proc.terminate()
            proc.wait(60)
            log.close()
            r.flushdb()
    waits = [(t.started_at - t.queued_at).total_seconds() * 1000 for t in tasks if t.started_at]
    ok = sum(1 for t in tasks if t.status == "succeeded")
    out = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "load": round(os.getloadavg()[0], 1),
        "workers": args.workers,
        "tasks": args.tasks,
        "succeeded": ok,
        "model_latency_s": args.latency,
        "enqueue_rate_per_s": args.rate or "all at once",
        "throughput_per_s": round(len(tasks) / elapsed, 3),
        "queue_to_start_ms": {"p50": round(pct(waits, 50)), "p99": round(pct(waits, 99))},
        "footprint_after_10pct": early,
        "footprint_end": late,
        "metrics_scrape_ms": round(scrape_ms, 1),
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
