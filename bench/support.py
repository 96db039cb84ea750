"""Shared helpers for benchmarks: throwaway Postgres/Redis databases, uvicorn on port 0, stats."""

from __future__ import annotations

import asyncio
import os
import platform
import socket
import statistics
import threading
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import uvicorn

PG_ADMIN_URL = os.environ.get(
    "WEBAGENT_TEST_DATABASE_URL", "postgresql+asyncpg://postgres@127.0.0.1:5432/test"
)
REDIS_URL = os.environ.get("WEBAGENT_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def machine() -> str:
    return f"{platform.node()} {os.cpu_count()} cores, Python {platform.python_version()}"


def pct(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (ms values in, ms out)."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = max(0, min(len(ordered) - 1, round(p / 100 * len(ordered) + 0.5) - 1))
    return ordered[k]


def summary(values_ms: Sequence[float]) -> dict[str, float]:
    return {
        "n": len(values_ms),
        "p50": round(statistics.median(values_ms), 2),
        "p99": round(pct(values_ms, 99), 2),
        "mean": round(statistics.fmean(values_ms), 2),
    }


async def _pg_admin(sql: str) -> None:
    import asyncpg

    conn = await asyncpg.connect(PG_ADMIN_URL.replace("+asyncpg", ""), timeout=5)
    try:
        await conn.execute(sql)
    finally:
        await conn.close()


@contextmanager
def scratch_postgres() -> Iterator[str]:
    name = f"webagent_bench_{uuid.uuid4().hex[:8]}"
    asyncio.run(_pg_admin(f'CREATE DATABASE "{name}"'))
    try:
        yield PG_ADMIN_URL.rsplit("/", 1)[0] + f"/{name}"
    finally:
        asyncio.run(_pg_admin(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))


@contextmanager
def scratch_redis() -> Iterator[str]:
    import redis

    url = REDIS_URL  # the one DB WEBAGENT_TEST_REDIS_URL names: never a random one (shared Redis)
    client = redis.Redis.from_url(url)
    client.flushdb()
    try:
        yield url
    finally:
        client.flushdb()
        client.close()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def serve(app: Any) -> Iterator[str]:
    """Run an ASGI app with uvicorn in a thread on a free port; yields its base URL."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 120  # a loaded machine starts Chromium slowly
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=15)
        sock.close()
