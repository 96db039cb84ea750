"""Production backends against real services: Redis Streams bus, rq dispatcher, Postgres app."""

from __future__ import annotations

import asyncio
import threading
import uuid
from datetime import UTC, datetime

import httpx
import pytest
import redis
from rq import Queue

from app.contracts import JOB_FUNC, Event, stream_key
from app.db.migrate import upgrade_async
from app.dispatch import JOB_TIMEOUT_GRACE_S, RqDispatcher
from app.events import RedisEventBus
from app.main import create_app
from tests.integration.api.conftest import add_event, finish, live_server, make_settings, read_sse

pytestmark = pytest.mark.services


def _event(task_id: str, seq: int, type_: str = "step.started") -> Event:
    return Event(
        id=uuid.uuid4().hex,
        task_id=task_id,
        seq=seq,
        ts=datetime.now(UTC),
        type=type_,
        data={"step": seq},
    )


def _publish_from_other_thread(bus: RedisEventBus, events: list[Event]) -> None:
    """The embedded worker publishes from its own loop thread; so does this helper."""

    async def run() -> None:
        for event in events:
            await bus.publish(event)
        await bus.aclose()

    thread = threading.Thread(target=asyncio.run, args=(run(),))
    thread.start()
    thread.join()


async def test_redis_bus_tails_from_subscription_point(redis_url: str) -> None:
    bus = RedisEventBus(redis_url, maxlen=1000)
    task_id = uuid.uuid4().hex
    try:
        await bus.publish(_event(task_id, 1))  # before subscribing: not part of the live tail
        async with bus.subscribe(task_id) as sub:
            _publish_from_other_thread(bus, [_event(task_id, 2), _event(task_id, 3)])
            first = await sub.next(timeout=5)
            second = await sub.next(timeout=5)
            assert first is not None and second is not None
            assert [first.seq, second.seq] == [2, 3]
            assert await sub.next(timeout=0.05) is None
        ttl = await bus.client().ttl(stream_key(task_id))
        assert 0 < ttl <= bus.ttl_s
    finally:
        await bus.client().delete(stream_key(task_id))
        await bus.aclose()


async def test_redis_bus_trims_streams_to_maxlen(redis_url: str) -> None:
    bus = RedisEventBus(redis_url, maxlen=10)
    task_id = uuid.uuid4().hex
    try:
        for seq in range(1, 301):
            await bus.publish(_event(task_id, seq))
        length = await bus.client().xlen(stream_key(task_id))
        assert length < 300  # MAXLEN ~ trims whole macro-nodes, so only an upper bound holds
    finally:
        await bus.client().delete(stream_key(task_id))
        await bus.aclose()


async def test_rq_dispatcher_enqueues_job_by_name(redis_url: str) -> None:
    queue_name = f"webagent-test-{uuid.uuid4().hex[:8]}"
    dispatcher = RqDispatcher(redis_url, queue_name=queue_name)
    task_id = uuid.uuid4().hex
    try:
        assert await dispatcher.queue_depth() == 0
        await dispatcher.enqueue(task_id, timeout_s=120.5)
        assert await dispatcher.queue_depth() == 1
        job = Queue(queue_name, connection=redis.Redis.from_url(redis_url)).fetch_job(task_id)
        assert job is not None
        assert job.func_name == JOB_FUNC
        assert job.args == (task_id,)
        assert job.timeout == 121 + JOB_TIMEOUT_GRACE_S
    finally:
        dispatcher.queue.empty()
        dispatcher.close()


async def test_app_on_postgres_and_redis(postgres_url: str, redis_url: str) -> None:
    """Production wiring: Postgres rows, rq enqueue, SSE resumed over the Redis Streams bus."""
    await upgrade_async(postgres_url)
    queue_name = f"webagent-test-{uuid.uuid4().hex[:8]}"
    dispatcher = RqDispatcher(redis_url, queue_name=queue_name)
    settings = make_settings(postgres_url, redis_url=redis_url)
    app = create_app(settings, dispatcher=dispatcher)
    try:
        async with live_server(app) as base, httpx.AsyncClient(base_url=base, timeout=30) as client:
            assert isinstance(app.state.bus, RedisEventBus)
            ready = (await client.get("/readyz")).json()
            assert ready["checks"]["redis"]["ok"] and ready["checks"]["database"]["ok"]
            resp = await client.post("/v1/tasks", json={"instruction": "go"})
            assert resp.status_code == 202
            task_id = resp.json()["id"]
            assert dispatcher.queue.job_ids == [task_id]
            assert "webagent_queue_depth 1.0" in (await client.get("/metrics")).text

            worker_bus = RedisEventBus(redis_url)  # a worker process has its own client
            for seq in (1, 2):
                await add_event(app, worker_bus, task_id, seq, "step.started", step=seq)
            url = f"/v1/tasks/{task_id}/events"
            async with client.stream("GET", url, headers={"Last-Event-ID": "1"}) as stream_resp:
                messages = read_sse(stream_resp)
                seen = [(await anext(messages))["json"]["seq"]]
                await add_event(app, worker_bus, task_id, 3, "action.executed", step=2)
                await add_event(app, None, task_id, 4, "observation", step=2)  # lost publish
                await finish(app, task_id)
                await add_event(app, worker_bus, task_id, 5, "task.finished")
                seen += [m["json"]["seq"] async for m in messages]
            assert seen == [2, 3, 4, 5]
            await worker_bus.aclose()
    finally:
        dispatcher.queue.empty()


async def test_app_builds_rq_dispatcher_and_redis_bus_itself(
    postgres_url: str, redis_url: str
) -> None:
    await upgrade_async(postgres_url)
    app = create_app(make_settings(postgres_url, redis_url=redis_url))
    async with app.router.lifespan_context(app):
        assert isinstance(app.state.dispatcher, RqDispatcher)
        assert isinstance(app.state.bus, RedisEventBus)
        assert await app.state.redis.ping()
