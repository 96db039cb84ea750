"""One API process holding many concurrent SSE streams: memory per stream, event latency.

The production API (`build_app` with Postgres + the Redis event bus) runs in its own process
(uvicorn); this process opens --streams concurrent `GET /v1/tasks/{id}/events` streams on one
live task, waits until the API's `webagent_sse_connections` gauge shows them all, reads the
API process's RSS, then emits --events events through the worker's own sink (`DbEventSink`:
DB row, then Redis publish) and measures, per stream and event, the time from emit to the
client's read. Scratch Postgres database; the Redis DB named by --redis is flushed.

In the same run (unless --no-peer) the same number of streams then read a bare Starlette
SSE endpoint in a process of its own (`serve_peer`: one XREAD BLOCK loop on the task's
Redis stream fanning out to a queue per client, a plain StreamingResponse, no auth, no DB),
fed by the same sink at the same rate: the floor one Python process reaches on this machine.

Run: .venv/bin/python bench/sse_storm.py [--streams 2000] [--events 10]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import signal
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
from app.events import RedisEventBus  # noqa: E402
from app.settings import Settings  # noqa: E402
from bench.support import free_port, machine, pct, scratch_postgres  # noqa: E402
from tests.integration.workers.conftest import new_task  # noqa: E402
from workers.adapters.sink import DbEventSink  # noqa: E402


def serve_api(settings: Settings, port: int) -> None:
    import uvicorn

    from workers.process.embedded import build_app

    profile_to = os.environ.get("BENCH_PROFILE")  # a cProfile stats file of the API process
    if not profile_to:
        uvicorn.run(build_app(settings), host="127.0.0.1", port=port, log_level="warning")
        return
    import cProfile
    import signal

    profiler = cProfile.Profile(time.process_time)  # CPU, not wall time (a loaded machine)
    signal.signal(signal.SIGUSR1, lambda *_: profiler.dump_stats(profile_to))  # then terminate
    profiler.enable()
    uvicorn.run(build_app(settings), host="127.0.0.1", port=port, log_level="warning")


def serve_peer(redis_url: str, key: str, port: int) -> None:
    """The bare Starlette SSE endpoint: GET /events, and GET /count (open streams)."""
    import contextlib

    import redis.asyncio as aioredis
    import uvicorn
    from starlette.applications import Starlette
    from starlette.responses import PlainTextResponse, StreamingResponse
    from starlette.routing import Route

    queues: set[asyncio.Queue[bytes]] = set()

    async def pump() -> None:
        client = aioredis.Redis.from_url(redis_url)
        last = "$"
        while True:
            reply = await client.xread({key: last}, block=1000, count=100)
            for _, entries in reply or ():
                for entry_id, fields in entries:
                    last = entry_id
                    raw = fields[b"event"].decode()
                    event = json.loads(raw)
                    body = f"id: {event['seq']}\r\nevent: {event['type']}\r\ndata: {raw}\r\n\r\n"
                    for queue in queues:
                        queue.put_nowait(body.encode())

    async def events(request: Any) -> StreamingResponse:
        queue: asyncio.Queue[bytes] = asyncio.Queue()
        queues.add(queue)

        async def frames() -> Any:
            try:
                while True:
                    yield await queue.get()
            finally:
                queues.discard(queue)

        return StreamingResponse(frames(), media_type="text/event-stream")

    async def count(request: Any) -> PlainTextResponse:
        return PlainTextResponse(str(len(queues)))

    @contextlib.asynccontextmanager
    async def lifespan(app: Any) -> Any:
        task = asyncio.create_task(pump())
        yield
        task.cancel()

    app = Starlette(routes=[Route("/events", events), Route("/count", count)], lifespan=lifespan)
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def gauge(base: str) -> float:
    for line in httpx.get(f"{base}/metrics", timeout=30).text.splitlines():
        if line.startswith("webagent_sse_connections "):
            return float(line.split()[1])
    return 0.0


def peer_count(base: str) -> float:
    return float(httpx.get(f"{base}/count", timeout=30).text)


async def live_task(db: str) -> str:
    engine = create_engine(db)
    sessions = session_factory(engine)
    task_id = await new_task(sessions, instruction="sse storm", start_url=None, timeout_s=3600)
    async with sessions() as s:
        await repositories.mark_running(s, task_id=task_id, worker_id="bench")
        await s.commit()
    await engine.dispose()
    return task_id


async def reader(port: int, path: str, events: int, lat: list[float], ready: Any) -> None:
    """One SSE client on a bare socket (httpx's per-line cost, times 2,000 streams in this
    process, was part of the latency measured): data lines arrive whole, one chunk each."""
    stream, writer = await asyncio.open_connection("127.0.0.1", port, limit=2**20)
    try:
        writer.write(f"GET {path} HTTP/1.1\r\nHost: bench\r\n\r\n".encode())
        status = await stream.readline()
        assert b" 200 " in status, status
        ready()
        got = 0
        while got < events:
            line = await stream.readline()
            assert line, "stream ended"
            if not line.startswith(b"data:"):
                continue
            event = json.loads(line[5:])
            if event["type"] == "bench.tick":
                lat.append((time.time() - float(event["data"]["t"])) * 1000)
                got += 1
    finally:
        writer.close()


async def storm(
    args: argparse.Namespace,
    base: str,
    db: str,
    api_pid: int,
    task_id: str,
    path: str,
    count: Any = gauge,
) -> dict[str, Any]:
    lat: list[float] = []
    opened = 0

    def ready() -> None:
        nonlocal opened
        opened += 1

    port = int(base.rsplit(":", 1)[1])
    rss_before = psutil.Process(api_pid).memory_info().rss
    readers = [
        asyncio.create_task(reader(port, path, args.events, lat, ready))
        for _ in range(args.streams)
    ]
    t0 = time.monotonic()
    while (live := await asyncio.to_thread(count, base)) < args.streams:
        assert time.monotonic() < t0 + args.open_timeout, f"{opened} answered, {live:.0f} open"
        await asyncio.sleep(1)
    open_s = time.monotonic() - t0
    rss_after = psutil.Process(api_pid).memory_info().rss
    engine = create_engine(db)
    bus = RedisEventBus(args.redis)
    sink = DbEventSink(session_factory(engine), bus, task_id, "default")
    api = psutil.Process(api_pid)
    cpu0, wall0 = sum(api.cpu_times()[:2]), time.monotonic()
    for _ in range(args.events):
        await sink.emit("bench.tick", {"t": time.time()})
        await asyncio.sleep(args.gap)
    await sink.flush()  # the sink writes behind its caller
    await asyncio.wait_for(asyncio.gather(*readers), 300)
    cpu_s, wall_s = sum(api.cpu_times()[:2]) - cpu0, time.monotonic() - wall0
    await bus.aclose()
    await engine.dispose()
    return {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "load": round(os.getloadavg()[0], 1),
        "streams": args.streams,
        "events": args.events,
        "api_rss_mb": [round(rss_before / 2**20, 1), round(rss_after / 2**20, 1)],
        "kb_per_stream": round((rss_after - rss_before) / 1024 / args.streams, 1),
        "all_open_s": round(open_s, 1),
        # the API's CPU from the first emit to the last read: per event fanned out to every
        # stream (independent of the machine's load), and the share of a core it got
        "api_cpu_ms_per_event": round(cpu_s * 1000 / args.events, 1),
        "api_cpu_us_per_stream_event": round(cpu_s * 1e6 / args.events / args.streams, 1),
        "api_cpu_share_of_a_core": round(cpu_s / wall_s, 2),
        "latency_ms": {"n": len(lat), "p50": round(pct(lat, 50)), "p99": round(pct(lat, 99))},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--streams", type=int, default=2000)
    parser.add_argument("--events", type=int, default=10)
    parser.add_argument("--gap", type=float, default=0.5, help="seconds between events")
    parser.add_argument("--open-timeout", type=float, default=900, help="seconds to open all")
    parser.add_argument("--redis", default="redis://127.0.0.1:6379/13")  # load.py has 12
    parser.add_argument("--no-peer", action="store_true", help="skip the bare Starlette run")
    args = parser.parse_args()
    r = redis.Redis.from_url(args.redis)
    r.flushdb()
    with scratch_postgres() as db, tempfile.TemporaryDirectory() as data:
        upgrade(db)
        settings = Settings(
            database_url=db,
            redis_url=args.redis,
            data_dir=data,
            heartbeat_timeout_s=3600,  # nobody heartbeats the bench task: keep it live
        )
        port = free_port()
        api = multiprocessing.get_context("spawn").Process(
            target=serve_api, args=(settings, port), daemon=True
        )
        api.start()
        base = f"http://127.0.0.1:{port}"
        try:
            wait_up(f"{base}/healthz")
            assert api.pid is not None
            task_id = asyncio.run(live_task(db))
            path = f"/v1/tasks/{task_id}/events"
            out = {"webagent": asyncio.run(storm(args, base, db, api.pid, task_id, path))}
            if not args.no_peer:
                out["bare_starlette"] = run_peer(args, db, task_id)
        finally:
            if os.environ.get("BENCH_PROFILE") and api.pid is not None:
                os.kill(api.pid, signal.SIGUSR1)
                time.sleep(5)
            api.terminate()
            api.join(30)
            r.flushdb()
    print(json.dumps(out, indent=2))


def run_peer(args: argparse.Namespace, db: str, task_id: str) -> dict[str, Any]:
    """The same storm against the bare Starlette endpoint, fed by the same sink."""
    from app.contracts import stream_key

    port = free_port()
    peer = multiprocessing.get_context("spawn").Process(
        target=serve_peer, args=(args.redis, stream_key(task_id), port), daemon=True
    )
    peer.start()
    base = f"http://127.0.0.1:{port}"
    try:
        wait_up(f"{base}/count")
        assert peer.pid is not None
        return asyncio.run(storm(args, base, db, peer.pid, task_id, "/events", peer_count))
    finally:
        peer.terminate()
        peer.join(30)


def wait_up(url: str, timeout: float = 300) -> None:
    deadline = time.monotonic() + timeout
    while True:
        try:
            httpx.get(url, timeout=2)
            return
        except httpx.HTTPError:
            assert time.monotonic() < deadline, f"{url} did not answer"
            time.sleep(0.5)


if __name__ == "__main__":
    main()
