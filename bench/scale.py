"""Scale: N worker processes against one API, and how throughput and shared state grow with N.

For each N of --workers (default 1 2 4): a scratch Postgres database, the Redis DB named by
--redis (flushed: give it a DB nobody else uses), the production API in its own uvicorn
process, `webagent worker --concurrency N` (its warm standby included), the scripted model
(each call answers after --latency s) and a local site. --tasks tasks are submitted at once
through POST /v1/tasks; each is one observation, one model call and done.

  throughput      tasks finished per second (first submit to last finish)
  queue→start     started_at - created_at (the submit), p50 / p99
  pg connections  most backends on the scratch database seen at once (sampled every 0.5 s;
                  the sampler's own connection not counted): API pool + workers + reapers
  redis bytes     MEMORY USAGE summed over every key of the bench's Redis DB at the end
                  (task event streams, rq's queue, jobs and registries)

Run: .venv/bin/python bench/scale.py [--workers 1 2 4] [--tasks 12] [--redis URL]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import redis

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sqlalchemy.engine import make_url  # noqa: E402

from app.settings import Settings  # noqa: E402
from bench.load import deployment, spawn_worker, wait_metrics, worker_env  # noqa: E402
from bench.sse_storm import serve_api, wait_up  # noqa: E402
from bench.support import free_port, machine, pct  # noqa: E402

TERMINAL = {"succeeded", "failed", "timed_out", "cancelled"}


def redis_bytes(client: redis.Redis) -> int:
    return sum(int(client.memory_usage(key) or 0) for key in client.scan_iter(count=1000))


async def pg_backends(dsn: str) -> int:
    conn = await asyncpg.connect(dsn)
    try:
        query = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
        return int(await conn.fetchval(query)) - 1
    finally:
        await conn.close()


async def drive(base: str, url: str, n: int, dsn: str, budget_s: float) -> dict[str, Any]:
    """Submit n tasks at once, sample Postgres until all are terminal; the finished tasks."""
    peak = 0
    async with httpx.AsyncClient(base_url=base, timeout=60) as client:
        body = {"instruction": "report the shop on the start page", "start_url": url}
        started = time.monotonic()
        ids = []
        for _ in range(n):
            response = await client.post("/v1/tasks", json={**body, "max_steps": 3})
            response.raise_for_status()
            ids.append(response.json()["id"])
        tasks: list[dict[str, Any]] = []
        deadline = started + budget_s
        while time.monotonic() < deadline:
            peak = max(peak, await pg_backends(dsn))
            tasks = [(await client.get(f"/v1/tasks/{i}")).json() for i in ids]
            if all(t["status"] in TERMINAL for t in tasks):
                break
            await asyncio.sleep(0.5)
        elapsed = time.monotonic() - started
    return {"tasks": tasks, "elapsed": elapsed, "pg_peak": peak}


def _seconds(a: str | None, b: str | None) -> float | None:
    if a is None or b is None:
        return None
    return (datetime.fromisoformat(b) - datetime.fromisoformat(a)).total_seconds()


def run_n(args: argparse.Namespace, workers: int) -> dict[str, Any]:
    r = redis.Redis.from_url(args.redis)
    r.flushdb()
    with deployment(args.latency) as (db, llm_url, site, data):
        settings = Settings(
            database_url=db,
            redis_url=args.redis,
            data_dir=data,
            llm_base_url=llm_url,
            allow_private_networks=True,  # the local site
        )
        api_port, metrics_port = free_port(), free_port()
        api = multiprocessing.get_context("spawn").Process(
            target=serve_api, args=(settings, api_port), daemon=True
        )
        api.start()
        env = worker_env(db, args.redis, llm_url, args.chromium, metrics_port, data)
        log = open(Path(data) / "worker.log", "wb")  # noqa: SIM115 - closed below
        proc = spawn_worker(env, workers, log)
        base = f"http://127.0.0.1:{api_port}"
        try:
            wait_up(f"{base}/healthz")
            for i in range(workers):
                wait_metrics(metrics_port + i, proc, timeout=300)
            dsn = make_url(db).set(drivername="postgresql").render_as_string(hide_password=False)
            result = asyncio.run(drive(base, site.url("/"), args.tasks, dsn, args.budget))
            memory = redis_bytes(r)
        finally:
            proc.terminate()
            proc.wait(60)
            log.close()
            api.terminate()
            api.join(30)
            r.flushdb()
    tasks = result["tasks"]
    waits = [s * 1000 for t in tasks if (s := _seconds(t.get("created_at"), t.get("started_at")))]
    finished = [t for t in tasks if t["status"] in TERMINAL]
    return {
        "workers": workers,
        "load": round(os.getloadavg()[0], 1),
        "tasks": args.tasks,
        "finished": len(finished),
        "succeeded": sum(1 for t in tasks if t["status"] == "succeeded"),
        "throughput_per_s": round(len(finished) / result["elapsed"], 3),
        "queue_to_start_ms": {"p50": round(pct(waits, 50)), "p99": round(pct(waits, 99))},
        "pg_connections_peak": result["pg_peak"],
        "redis_bytes": memory,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--tasks", type=int, default=12)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--budget", type=float, default=900, help="seconds per N")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/12")
    parser.add_argument("--chromium", default=os.environ.get("WEBAGENT_CHROMIUM_PATH", ""))
    args = parser.parse_args()
    args.chromium = args.chromium or "/usr/bin/chromium"
    runs = [run_n(args, n) for n in args.workers]
    out = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "model_latency_s": args.latency,
        "runs": runs,
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
