"""Live SSE across a quiet period longer than the Redis socket timeout, both buses.

Before the fix, XREAD BLOCK 5000 on a client with a 5 s socket timeout raised TimeoutError
after 5 quiet seconds and ended every live stream; the memory bus never had that fault.
redis-py sets no socket timeout unless asked, so these clients ask for SOCKET_TIMEOUT_S in
the URL (a slice as long as the old BLOCK 5000 fails against it), and a failed bus read is
a logged warning the tests look for (the bus answers None after one, like a quiet period).
"""

from __future__ import annotations

import logging
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

SOCKET_TIMEOUT_S = 2.0  # the Redis clients' socket timeout (?socket_timeout= in the URL)
QUIET_S = 3.0  # longer than the socket timeout
PING_S = 0.5


def _with_socket_timeout(redis_url: str) -> str:
    return f"{redis_url}{'&' if '?' in redis_url else '?'}socket_timeout={SOCKET_TIMEOUT_S}"


def _bus_read_failures(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "app.events" and r.levelno >= 30]


async def _lines(response: httpx.Response) -> AsyncIterator[str]:
    async for line in response.aiter_lines():
        yield line


async def test_redis_subscription_outlives_the_socket_timeout(
    redis_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING, logger="app.events")
    bus = RedisEventBus(_with_socket_timeout(redis_url))
    try:
        async with bus.subscribe(uuid.uuid4().hex) as sub:
            assert await sub.next(timeout=QUIET_S) is None  # raised TimeoutError at 5 s before
    finally:
        await bus.aclose()
    assert _bus_read_failures(caplog) == []


@pytest.mark.parametrize(
    "deployment", ["embedded", pytest.param("scaled", marks=pytest.mark.redis)]
)
async def test_live_stream_survives_a_quiet_period_with_keepalives(
    deployment: str,
    sqlite_url: str,
    request: pytest.FixtureRequest,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.WARNING, logger="app.events")
    await upgrade_async(sqlite_url)
    bus: EventBus
    if deployment == "scaled":
        redis_url = _with_socket_timeout(request.getfixturevalue("redis_url"))
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
    assert _bus_read_failures(caplog) == []
    if isinstance(bus, RedisEventBus) and isinstance(worker_bus, RedisEventBus):
        await worker_bus.aclose()
