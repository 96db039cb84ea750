"""SSE storm (issue 13, scenario 9): 1,000 connect/disconnect cycles on a live task's event
stream (10 clients in parallel) leave the API process's asyncio tasks, open file descriptors
and Redis connections at their baseline (within 2) within 30 s. Production API (Postgres +
Redis event bus) served by uvicorn in this process, so its loop and descriptors can be
counted."""

from __future__ import annotations

import asyncio
import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import psutil
import pytest
import uvicorn

from app.db import create_engine, repositories, session_factory
from app.db.migrate import upgrade
from app.db.types import utcnow
from tests.e2e.conftest import _settings
from tests.integration.workers.conftest import new_task
from tests.support.llm_server import ScriptedLLMServer
from workers.process.embedded import build_app

pytestmark = [pytest.mark.services, pytest.mark.chaos]

CYCLES = 1000
PARALLEL = 10
SETTLE_S = 30.0
SLACK = 2


@contextmanager
def api(app: object) -> Iterator[tuple[str, asyncio.AbstractEventLoop]]:
    """uvicorn on a free port in a thread with its own loop; yields (base URL, loop)."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    loop = asyncio.new_event_loop()
    thread = threading.Thread(
        target=loop.run_until_complete, args=(server.serve(sockets=[sock]),), daemon=True
    )
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}", loop
    finally:
        server.should_exit = True
        thread.join(15)
        sock.close()


def counts(loop: asyncio.AbstractEventLoop, redis_port: int) -> tuple[int, int, int]:
    """(asyncio tasks on the API loop, open fds of this process, its Redis connections)."""

    async def tasks() -> int:
        return len(asyncio.all_tasks())

    me = psutil.Process()
    redis = sum(1 for c in me.net_connections("tcp") if c.raddr and c.raddr.port == redis_port)
    return asyncio.run_coroutine_threadsafe(tasks(), loop).result(10), me.num_fds(), redis


def one_cycle(client: httpx.Client, task_id: str) -> None:
    """Connect, read the first event (the replay), disconnect."""
    with client.stream("GET", f"/v1/tasks/{task_id}/events", timeout=30.0) as response:
        assert response.status_code == 200
        for line in response.iter_lines():
            if line.startswith("data:"):
                return


async def test_a_thousand_sse_cycles_leave_no_residue(
    chromium_path: str,
    postgres_url: str,
    redis_url: str,
    llm_server: ScriptedLLMServer,
    tmp_path: Path,
) -> None:
    upgrade(postgres_url)
    engine = create_engine(postgres_url)
    sessions = session_factory(engine)
    task_id = await new_task(sessions, start_url="http://127.0.0.1:1/")
    async with sessions() as s:  # a live task with one event: streams stay open until closed
        await repositories.mark_running(s, task_id=task_id, worker_id="storm")
        await repositories.append_event(
            s, task_id=task_id, seq=1, type="task.started", data={}, ts=utcnow()
        )
        await s.commit()
    await engine.dispose()
    settings = _settings(
        chromium_path,
        llm_server,
        tmp_path,
        database_url=postgres_url,
        redis_url=redis_url,
        heartbeat_timeout_s=3600,  # the task stays live (nobody heartbeats it) for the storm
    )
    redis_port = urlsplit(redis_url).port or 6379
    with api(build_app(settings)) as (base_url, loop):

        def storm(n: int) -> None:
            with httpx.Client(base_url=base_url) as client:
                for _ in range(n):
                    one_cycle(client, task_id)

        # warm up at the storm's concurrency: connection pools reach their working size (a
        # bounded, reused pool is not residue; growth with the number of cycles would be)
        with ThreadPoolExecutor(PARALLEL) as pool:
            list(pool.map(storm, [5] * PARALLEL))
        baseline = counts(loop, redis_port)
        started = time.monotonic()
        with ThreadPoolExecutor(PARALLEL) as pool:
            done = list(pool.map(storm, [CYCLES // PARALLEL] * PARALLEL))
        assert len(done) == PARALLEL
        storm_s = time.monotonic() - started
        after = counts(loop, redis_port)
        deadline = time.monotonic() + SETTLE_S
        while any(a > b + SLACK for a, b in zip(after, baseline, strict=True)):
            assert time.monotonic() < deadline, f"baseline {baseline}, after 30 s {after}"
            await asyncio.sleep(0.5)
            after = counts(loop, redis_port)
        gauge = httpx.get(f"{base_url}/metrics").text
        assert "webagent_sse_connections 0.0" in gauge
        print(f"{CYCLES} cycles in {storm_s:.1f}s; (tasks, fds, redis) {baseline} -> {after}")
