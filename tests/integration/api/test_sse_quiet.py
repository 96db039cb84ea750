"""Live SSE across a quiet period longer than the Redis socket timeout (5 s), both buses.

Before the fix, XREAD BLOCK 5000 on a client with a 5 s socket timeout raised TimeoutError
after 5 quiet seconds and ended every live stream; the memory bus never had that fault.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

import httpx
import pytest

from app.db.migrate import upgrade_async
from app.events import EventBus, MemoryEventBus, RedisEventBus
from app.main import create_app
from tests.integration.api.conftest import (
    RecordingDispatcher,
    add_event,
    finish,
    live_server,
    make_settings,
)

QUIET_S = 6.5  # longer than redis-py's default socket timeout (5 s)
PING_S = 0.5


async def _lines(response: httpx.Response) -> AsyncIterator[str]:
    async for line in response.aiter_lines():
        yield line


async def test_redis_subscription_outlives_the_socket_timeout(redis_url: str) -> None:
    bus = RedisEventBus(redis_url)
    try:
        async with bus.subscribe(uuid.uuid4().hex) as sub:
            assert await sub.next(timeout=QUIET_S) is None  # raised TimeoutError at 5 s before
    finally:
        await bus.aclose()


@pytest.mark.parametrize("deployment", ["embedded", "scaled"])
async def test_live_stream_survives_a_quiet_period_with_keepalives(
    deployment: str, sqlite_url: str, request: pytest.FixtureRequest
) -> None:
    await upgrade_async(sqlite_url)
    bus: EventBus
    if deployment == "scaled":
        redis_url = request.getfixturevalue("redis_url")
        bus, worker_bus = RedisEventBus(redis_url), RedisEventBus(redis_url)
    else:
        bus = worker_bus = MemoryEventBus()
    # DB re-poll slower than the quiet period, so only the live bus can deliver the tail
    settings = make_settings(sqlite_url, sse_ping_s=PING_S, sse_db_poll_s=QUIET_S + 5)
    app = create_app(settings, dispatcher=RecordingDispatcher(), bus=bus)
    async with live_server(app) as base, httpx.AsyncClient(base_url=base, timeout=30) as client:
        task_id = (await client.post("/v1/tasks", json={"instruction": "go"})).json()["id"]
        await add_event(app, worker_bus, task_id, 1, "task.started")
        seen: list[int] = []
        pings = 0
        async with client.stream("GET", f"/v1/tasks/{task_id}/events") as resp:
            lines = _lines(resp)
            async for line in lines:
                if line.startswith("id:"):
                    seen.append(int(line[3:]))
                    break
            # the quiet model call: count keep-alive comments until it has lasted QUIET_S
            async for line in lines:
                pings += line.startswith(":")
                if pings * PING_S >= QUIET_S:
                    break
            await add_event(app, worker_bus, task_id, 2, "step.started", step=1)
            await finish(app, task_id)
            await add_event(app, worker_bus, task_id, 3, "task.finished", status="succeeded")
            async for line in lines:
                if line.startswith("id:"):
                    seen.append(int(line[3:]))
    assert seen == [1, 2, 3]
    assert pings * PING_S >= QUIET_S
    if isinstance(bus, RedisEventBus) and isinstance(worker_bus, RedisEventBus):
        await worker_bus.aclose()
