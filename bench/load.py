"""Load and soak: task throughput of 1 and N worker processes, queue-to-start, leaks.

Production deployment on this machine: a scratch Postgres database, the Redis DB named by
--redis (flushed before and after: give it a DB nobody else uses), `webagent worker
--concurrency N` as operators run it (its warm standby included), the scripted model server
(each model call answers after --latency seconds) and a local site. Tasks are inserted and
enqueued exactly like POST /v1/tasks does; each is one observe + one model call + done.

  throughput   tasks finished per second over the run (first enqueue to last finish)
  queue→start  started_at - queued_at of every task, p50 / p99
  soak         bench/soak.py: open fds by process kind (+-5; Chromium kinds per process) and
               RSS (+-10%) of the worker tree, medians of 5 samples after 10% of the tasks
               vs the end, Chromium launches vs --recycle-after (the setting
               WEBAGENT_BROWSER_RECYCLE_AFTER_TASKS), worker /metrics scrapes (< 500 ms)

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
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Any

import httpx
import redis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy import func, select  # noqa: E402

from app.db import Task, create_engine, repositories, session_factory  # noqa: E402
from app.db.migrate import upgrade  # noqa: E402
from app.dispatch import RqDispatcher  # noqa: E402
from app.settings import Settings  # noqa: E402
from bench.soak import Watch  # noqa: E402
from bench.support import free_port, machine, pct, scratch_postgres  # noqa: E402
from tests.integration.workers.conftest import new_task  # noqa: E402
from tests.integration.workers.test_jobs import read_home_policy  # noqa: E402
from tests.support.llm_server import ScriptedLLMServer  # noqa: E402
from tests.support.sites import TestSite  # noqa: E402

WEBAGENT = str(Path(sys.executable).with_name("webagent"))


@contextmanager
def deployment(latency: float) -> Iterator[tuple[str, str, TestSite, str]]:
    """A migrated scratch Postgres, the scripted model answering after `latency` s (its
    base URL), the local site and a data directory, all removed on exit."""

    def policy(request: dict[str, Any]) -> Any:
        return dataclasses.replace(read_home_policy(request), delay_s=latency)

    with (
        scratch_postgres() as db,
        ScriptedLLMServer(policy) as llm,
        TestSite() as site,
        tempfile.TemporaryDirectory() as data,
    ):
        upgrade(db)
        yield db, llm.base_url, site, data


def worker_env(
    db: str, redis_url: str, llm_url: str, chromium: str, port: int, data: str
) -> dict[str, str]:
    """The environment of a production `webagent worker` on the bench's services."""
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("WEBAGENT_")},
        "WEBAGENT_DATABASE_URL": db,
        "WEBAGENT_REDIS_URL": redis_url,
        "WEBAGENT_LLM_BASE_URL": llm_url,
        "WEBAGENT_CHROMIUM_PATH": chromium,
        "WEBAGENT_ALLOW_PRIVATE_NETWORKS": "true",
        "WEBAGENT_WORKER_METRICS_PORT": str(port),
        "WEBAGENT_DATA_DIR": data,
        "WEBAGENT_LOG_LEVEL": "WARNING",
    }


def spawn_worker(
    env: dict[str, str],
    concurrency: int,
    log: IO[bytes],
    python: Sequence[str] = (),
    cwd: Any = None,
) -> subprocess.Popen[bytes]:
    """`webagent worker --concurrency N` in its own session, output to `log` (`python`: an
    interpreter command line to run the script with)."""
    return subprocess.Popen(
        [*python, WEBAGENT, "worker", "--concurrency", str(concurrency), "--grace", "30"],
        env=env,
        cwd=cwd,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


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
    db: str,
    redis_url: str,
    url: str,
    n: int,
    rate: float,
    on_tick: Callable[[int, int], None],
    budget_s: float,
) -> list[Any]:
    """Insert and enqueue n tasks, then poll until all finished or `budget_s` has passed
    (on_tick(done, n) each poll); returns the finished tasks."""
    engine = create_engine(db)
    sessions = session_factory(engine)
    dispatcher = RqDispatcher(redis_url)
    ids = []
    try:
        for _ in range(n):
            task_id = await new_task(
                sessions,
                instruction="report the shop on the start page",
                start_url=url,
                max_steps=3,
                timeout_s=120,
            )
            await dispatcher.enqueue(task_id, timeout_s=120)
            ids.append(task_id)
            if rate > 0:
                await asyncio.sleep(1 / rate)
        done, deadline = 0, time.monotonic() + budget_s
        while done < n and time.monotonic() < deadline:
            await asyncio.sleep(0.5)
            async with sessions() as s:
                finished = Task.id.in_(ids) & Task.finished_at.is_not(None)
                done = (await s.execute(select(func.count()).where(finished))).scalar_one()
            await asyncio.to_thread(on_tick, done, n)
        async with sessions() as s:
            tasks = [await repositories.get_task(s, task_id=i) for i in ids]
        return [t for t in tasks if t is not None and t.finished_at is not None]
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
    parser.add_argument("--recycle-after", type=int, default=Settings().browser_recycle_after_tasks)
    parser.add_argument("--max-minutes", type=float, default=0, help="stop waiting (0: never)")
    args = parser.parse_args()
    budget_s = args.max_minutes * 60 or float("inf")
    chromium = args.chromium or "/usr/bin/chromium"
    r = redis.Redis.from_url(args.redis)
    r.flushdb()

    with deployment(args.latency) as (db, llm_url, site, data):
        port = free_port()
        env = worker_env(db, args.redis, llm_url, chromium, port, data)
        env["WEBAGENT_BROWSER_RECYCLE_AFTER_TASKS"] = str(args.recycle_after)
        log = open(Path(data) / "worker.log", "wb")  # noqa: SIM115 - closed below
        proc = spawn_worker(env, args.workers, log)
        try:
            for i in range(args.workers):
                wait_metrics(port + i, proc)
            watch = Watch(proc.pid, port)
            started = time.monotonic()
            tasks = asyncio.run(
                run_tasks(
                    db, args.redis, site.url("/"), args.tasks, args.rate, watch.tick, budget_s
                )
            )
            elapsed = time.monotonic() - started
            watch.finish()
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
        "finished": len(tasks),
        "succeeded": ok,
        "model_latency_s": args.latency,
        "enqueue_rate_per_s": args.rate or "all at once",
        "throughput_per_s": round(len(tasks) / elapsed, 3),
        "queue_to_start_ms": {"p50": round(pct(waits, 50)), "p99": round(pct(waits, 99))},
        **watch.verdict(len(tasks), args.workers, args.recycle_after),
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
