"""Service backbone benchmark: submit latency, queue-to-start, warm context, event latency.

Every figure is measured side by side with a peer floor in the same run and reported as a
ratio, because absolute times on these shared machines are noisy:
  submit      POST /v1/tasks (Postgres + rq)   vs a bare FastAPI 202 endpoint (no storage)
  queue→start task created → worker started    vs bare rq: enqueue → SimpleWorker job start
  context     warm pool context + page         vs cold Chromium launch + context + page
  events      worker sink emit → SSE client    vs raw Redis XADD → XREAD BLOCK

Run: .venv/bin/python bench/backbone.py [--rate 40] [--seconds 10]  (needs Postgres + Redis)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import redis
from fastapi import FastAPI
from pydantic import BaseModel

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.contracts import DEFAULT_TENANT, TaskStatus  # noqa: E402
from app.db import repositories  # noqa: E402
from app.db.migrate import upgrade  # noqa: E402
from app.db.session import create_engine, session_factory  # noqa: E402
from app.dispatch import RqDispatcher  # noqa: E402
from app.events import RedisEventBus  # noqa: E402
from app.main import create_app  # noqa: E402
from app.settings import Settings  # noqa: E402
from bench.support import (  # noqa: E402
    free_port,
    machine,
    scratch_postgres,
    scratch_redis,
    serve,
    summary,
)
from tests.support.llm_server import ScriptedLLMServer, tool_reply  # noqa: E402

BENCH_QUEUE = "webagent-bench-idle"  # nobody consumes it: submit latency only
TASK_HOLD_S = 1.0  # real tasks last seconds; back-to-back empty contexts are not a workload


class _Body(BaseModel):
    instruction: str
    start_url: str | None = None


def peer_app() -> FastAPI:
    """The floor for submit latency: same server, same JSON validation, no storage."""
    peer = FastAPI()

    @peer.post("/v1/tasks", status_code=202)
    async def submit(body: _Body) -> dict[str, Any]:
        return {"id": "x", "status": "queued", "instruction": body.instruction}

    return peer


async def _fixed_rate(base: str, rate: float, seconds: float) -> list[float]:
    """Open-loop load: one POST every 1/rate s regardless of responses; latencies in ms."""
    # an IP literal: this machine has no DNS, and the policy refuses names it cannot resolve
    body = {"instruction": "benchmark task", "start_url": "https://1.1.1.1/"}
    latencies: list[float] = []
    limits = httpx.Limits(max_connections=200, max_keepalive_connections=200)
    async with httpx.AsyncClient(base_url=base, timeout=30, limits=limits) as client:

        async def one() -> None:
            t0 = time.perf_counter()
            r = await client.post("/v1/tasks", json=body)
            latencies.append((time.perf_counter() - t0) * 1000)
            r.raise_for_status()

        await client.post("/v1/tasks", json=body)  # warm-up: connection + first insert
        start = time.perf_counter()
        pending = []
        for i in range(int(rate * seconds)):
            delay = start + i / rate - time.perf_counter()
            if delay > 0:
                await asyncio.sleep(delay)
            pending.append(asyncio.create_task(one()))
        await asyncio.gather(*pending)
    return latencies


def bench_submit(pg: str, rd: str, rate: float, seconds: float) -> dict[str, Any]:
    settings = Settings(database_url=pg, redis_url=rd, allow_private_networks=False)
    upgrade(pg)
    app = create_app(settings, dispatcher=RqDispatcher(rd, queue_name=BENCH_QUEUE))
    with serve(app) as base:
        ours = asyncio.run(_fixed_rate(base, rate, seconds))
    with serve(peer_app()) as base:
        peer = asyncio.run(_fixed_rate(base, rate, seconds))
    redis.Redis.from_url(rd).delete(f"rq:queue:{BENCH_QUEUE}")
    return {"rate_rps": rate, "ours": summary(ours), "peer": summary(peer)}


def _worker_env(pg: str, rd: str, llm_url: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        WEBAGENT_DATABASE_URL=pg,
        WEBAGENT_REDIS_URL=rd,
        WEBAGENT_LLM_BASE_URL=llm_url,
        WEBAGENT_LLM_API_KEY="bench",
        WEBAGENT_ALLOW_PRIVATE_NETWORKS="true",
        WEBAGENT_WORKER_METRICS_PORT=str(free_port()),
    )
    return env


async def _queue_to_start(pg: str, rd: str, n: int) -> list[float]:
    """Submit one task at a time to an idle worker; started_at - created_at per task."""
    settings = Settings(database_url=pg, redis_url=rd)
    dispatcher = RqDispatcher(rd)
    engine = create_engine(pg)
    sessions = session_factory(engine)
    waits: list[float] = []
    try:
        for _ in range(n):
            async with sessions() as s:
                task, _ = await repositories.create_task(
                    s,
                    tenant_id=DEFAULT_TENANT,
                    instruction="answer at once",
                    start_url=None,
                    max_steps=3,
                    timeout_s=settings.default_timeout_s,
                    allowed_domains=[],
                    metadata={},
                )
                await s.commit()
            await dispatcher.enqueue(task.id, timeout_s=60)
            while True:
                async with sessions() as s:
                    row = await repositories.get_task(s, task_id=task.id)
                assert row is not None
                if TaskStatus(row.status).terminal:
                    break
                await asyncio.sleep(0.05)
            assert row.started_at is not None, f"task never started: {row.error}"
            waits.append((row.started_at - row.created_at).total_seconds() * 1000)
    finally:
        dispatcher.close()
        await engine.dispose()
    return waits


def _rq_floor(rd: str, n: int) -> list[float]:
    """Bare rq: enqueue a job that stamps its start time; measured against a SimpleWorker."""
    from rq import Queue

    conn = redis.Redis.from_url(rd)
    queue = Queue("webagent-bench-floor", connection=conn)
    command = [sys.executable, "-m", "rq.cli", "worker", "-w", "rq.worker.SimpleWorker"]
    proc = subprocess.Popen(
        [*command, "--url", rd, "webagent-bench-floor"],
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    waits: list[float] = []
    try:
        queue.enqueue("bench.rq_probe.stamp", "warm").latest_result(timeout=60)
        for i in range(n):
            t0 = time.time()
            job = queue.enqueue("bench.rq_probe.stamp", str(i))
            result = job.latest_result(timeout=60)
            assert result is not None and result.return_value is not None
            waits.append((float(result.return_value) - t0) * 1000)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    return waits


def bench_queue_to_start(pg: str, rd: str, n: int) -> dict[str, Any]:
    with ScriptedLLMServer(lambda req: tool_reply(("done", {"answer": "ok"}))) as llm:
        proc = subprocess.Popen(
            [str(ROOT / ".venv/bin/webagent"), "worker", "--concurrency", "1"],
            env=_worker_env(pg, rd, llm.base_url),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            time.sleep(4)  # warm Chromium + rq registration, like a long-lived worker
            ours = asyncio.run(_queue_to_start(pg, rd, n))
        finally:
            proc.terminate()
            proc.wait(timeout=30)
    peer = _rq_floor(rd, n)
    return {"ours": summary(ours), "peer": summary(peer)}


async def _contexts(n: int) -> tuple[list[float], list[float]]:
    from playwright.async_api import async_playwright

    from workers.browser.runtime.launch import launch_chromium
    from workers.browser.runtime.pool import BrowserPool

    settings = Settings(allow_private_networks=True)
    cold: list[float] = []
    async with async_playwright() as pw:
        for _ in range(n):
            t0 = time.perf_counter()
            browser = await launch_chromium(pw, settings)
            ctx = await browser.new_context()
            await ctx.new_page()
            cold.append((time.perf_counter() - t0) * 1000)
            await browser.close()
    pool = BrowserPool(settings)
    await pool.start()
    warm: list[float] = []
    try:
        for _ in range(n):
            t0 = time.perf_counter()
            async with pool.context() as page:
                warm.append((time.perf_counter() - t0) * 1000)
                await page.set_content("<p>task</p>")
                await asyncio.sleep(TASK_HOLD_S)  # a task's lifetime: the spare gets prepared
    finally:
        await pool.close()
    return warm, cold


def bench_contexts(n: int) -> dict[str, Any]:
    warm, cold = asyncio.run(_contexts(n))
    return {"ours": summary(warm), "peer": summary(cold)}


class _SinkThread:
    """The worker side: a DbEventSink on its own event loop, like a worker process."""

    def __init__(self, pg: str, rd: str, task_id: str) -> None:
        self.loop = asyncio.new_event_loop()
        threading.Thread(target=self.loop.run_forever, daemon=True).start()
        self.pg, self.rd, self.task_id = pg, rd, task_id

    def run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=120)

    async def emit_all(self, n: int, interval: float) -> None:
        from workers.adapters.sink import DbEventSink

        engine = create_engine(self.pg)
        bus = RedisEventBus(self.rd)
        sink = DbEventSink(session_factory(engine), bus, self.task_id, DEFAULT_TENANT)
        for i in range(n):
            await sink.emit("observation", {"i": i, "t": time.perf_counter()})
            await asyncio.sleep(interval)
        await sink.emit("task.finished", {"status": "succeeded", "t": time.perf_counter()})
        await sink.flush()  # the sink writes behind its caller
        await bus.aclose()
        await engine.dispose()


async def _sse_client(base: str, task_id: str, ready: threading.Event) -> list[float]:
    got: list[float] = []
    async with (
        httpx.AsyncClient(base_url=base, timeout=120) as client,
        client.stream("GET", f"/v1/tasks/{task_id}/events") as resp,
    ):
        ready.set()
        async for line in resp.aiter_lines():
            if line.startswith("data:"):
                event = json.loads(line[5:])
                got.append((time.perf_counter() - event["data"]["t"]) * 1000)
                if event["type"] == "task.finished":
                    break
    return got


def _redis_floor(rd: str, n: int, interval: float) -> list[float]:
    conn = redis.Redis.from_url(rd)
    key = "webagent:bench:floor"
    conn.delete(key)
    got: list[float] = []

    def reader() -> None:
        last = "$"
        reader_conn = redis.Redis.from_url(rd)
        while len(got) < n:
            for _, entries in reader_conn.xread({key: last}, block=5000) or []:
                for entry_id, fields in entries:
                    last = entry_id
                    got.append((time.perf_counter() - float(fields[b"t"])) * 1000)

    thread = threading.Thread(target=reader, daemon=True)
    thread.start()
    time.sleep(0.2)
    for _ in range(n):
        conn.xadd(key, {"t": repr(time.perf_counter())}, maxlen=1000, approximate=True)
        time.sleep(interval)
    thread.join(timeout=30)
    conn.delete(key)
    return got


def bench_events(pg: str, rd: str, n: int, interval: float) -> dict[str, Any]:
    settings = Settings(database_url=pg, redis_url=rd)
    app = create_app(settings, dispatcher=RqDispatcher(rd, queue_name=BENCH_QUEUE))
    with serve(app) as base:
        created = httpx.post(f"{base}/v1/tasks", json={"instruction": "event latency"}).json()
        task_id = created["id"]
        ready = threading.Event()
        result: list[list[float]] = []
        client = threading.Thread(
            target=lambda: result.append(asyncio.run(_sse_client(base, task_id, ready)))
        )
        client.start()
        ready.wait(30)
        time.sleep(0.3)
        sink = _SinkThread(pg, rd, task_id)
        sink.run(sink.emit_all(n, interval))
        client.join(timeout=60)
    peer = _redis_floor(rd, n, interval)
    return {"ours": summary(result[0]), "peer": summary(peer)}


def _row(name: str, figures: dict[str, Any], peer_name: str) -> str:
    ours, peer = figures["ours"], figures["peer"]
    ratio = ours["p50"] / peer["p50"] if peer["p50"] else float("nan")
    shown = f"{ratio:.3g}" if ratio >= 1 else f"{ratio:.3g} ({1 / ratio:.0f}x faster)"
    return (
        f"| {name} | {ours['p50']} | {ours['p99']} | {peer_name} | {peer['p50']} | "
        f"{peer['p99']} | {shown} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rate", type=float, default=40.0, help="submit requests per second")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--tasks", type=int, default=20, help="queue-to-start samples")
    parser.add_argument("--contexts", type=int, default=15)
    parser.add_argument("--events", type=int, default=200)
    parser.add_argument("--out", default=str(ROOT / "bench/out/backbone.json"))
    args = parser.parse_args()
    results: dict[str, Any] = {"machine": machine(), "date": time.strftime("%Y-%m-%d")}
    with scratch_postgres() as pg, scratch_redis() as rd:
        results["submit"] = bench_submit(pg, rd, args.rate, args.seconds)
        results["queue_to_start"] = bench_queue_to_start(pg, rd, args.tasks)
        results["context"] = bench_contexts(args.contexts)
        results["events"] = bench_events(pg, rd, args.events, 0.02)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(results, indent=2))
    print(f"machine: {results['machine']}  date: {results['date']}")
    print("| figure (ms) | ours p50 | ours p99 | peer | peer p50 | peer p99 | ratio p50 |")
    print("|---|---|---|---|---|---|---|")
    rate = f"{args.rate:g} req/s"
    print(_row(f"task submit @ {rate}", results["submit"], "bare FastAPI 202"))
    print(_row("queue → start", results["queue_to_start"], "bare rq SimpleWorker"))
    print(_row("warm context + page", results["context"], "cold launch + context"))
    print(_row("event emit → SSE client", results["events"], "raw XADD → XREAD"))


if __name__ == "__main__":
    main()
