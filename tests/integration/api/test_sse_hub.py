"""One Redis reader per event loop: many live subscriptions share one blocking connection.

Before the hub, every `_RedisSubscription` ran its own XREAD BLOCK and held a pooled
connection while blocked, so 2,000 SSE streams exhausted redis-py's 100-connection pool.
"""

from __future__ import annotations

import asyncio
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from app.contracts import Event
from app.db import create_engine, repositories, session_factory
from app.db.migrate import upgrade_async
from app.event_stream import ReplayGate, stream_events
from app.events import RedisEventBus, Subscription
from tests.integration.workers.conftest import new_task

pytestmark = pytest.mark.services

TASKS = 50
SUBS_PER_TASK = 10
EVENTS = 5


def _event(task_id: str, seq: int) -> Event:
    return Event(
        id=uuid.uuid4().hex,
        task_id=task_id,
        seq=seq,
        ts=datetime.now(UTC),
        type="step.started",
        data={"step": seq},
    )


def _pool_connections(bus: RedisEventBus) -> int:
    pool = bus.client().connection_pool
    return len(pool._available_connections) + len(pool._in_use_connections)


async def _collect(sub: Subscription, n: int) -> list[int]:
    seqs: list[int] = []
    for _ in range(n):
        event = await sub.next(timeout=10)
        assert event is not None, f"timed out after {seqs}"
        seqs.append(event.seq)
    return seqs


async def test_500_subscriptions_share_at_most_3_connections(redis_url: str) -> None:
    bus, publisher = RedisEventBus(redis_url), RedisEventBus(redis_url)
    task_ids = [uuid.uuid4().hex for _ in range(TASKS)]
    subs = [bus.subscribe(t) for t in task_ids for _ in range(SUBS_PER_TASK)]
    try:
        for t in task_ids:  # published before the pins: never delivered
            await publisher.publish(_event(t, 0))
        await asyncio.gather(*(s.start() for s in subs))
        readers = [asyncio.create_task(_collect(s, EVENTS)) for s in subs]
        for seq in range(1, EVENTS + 1):
            for t in task_ids:
                await publisher.publish(_event(t, seq))
        results = await asyncio.gather(*readers)
        assert results == [list(range(1, EVENTS + 1))] * len(subs)
        assert all(await asyncio.gather(*(_quiet(s) for s in subs)))
        assert _pool_connections(bus) <= 3
    finally:
        for s in subs:
            await s.close()
        await bus.aclose()
        await publisher.aclose()


async def _quiet(sub: Subscription) -> bool:
    return await sub.next(timeout=0.05) is None


async def test_late_subscriber_gets_only_events_after_its_pin(redis_url: str) -> None:
    bus, publisher = RedisEventBus(redis_url), RedisEventBus(redis_url)
    task_id = uuid.uuid4().hex
    try:
        async with bus.subscribe(task_id) as early:
            await publisher.publish(_event(task_id, 1))
            await publisher.publish(_event(task_id, 2))
            assert await _collect(early, 2) == [1, 2]
            async with bus.subscribe(task_id) as late:
                await publisher.publish(_event(task_id, 3))
                await publisher.publish(_event(task_id, 4))
                assert await _collect(late, 2) == [3, 4]
                assert await _collect(early, 2) == [3, 4]
                assert await _quiet(late) and await _quiet(early)
    finally:
        await bus.aclose()
        await publisher.aclose()


async def test_hub_stops_when_the_last_subscription_closes(redis_url: str) -> None:
    bus = RedisEventBus(redis_url, block_s=0.2)
    try:
        async with bus.subscribe(uuid.uuid4().hex) as sub:
            assert await sub.next(timeout=0.05) is None
            task = bus.hub()._task
            assert task is not None and not task.done()
        await asyncio.wait_for(task, timeout=5)  # ends within one block slice
        assert bus.hub()._task is None
        async with bus.subscribe(uuid.uuid4().hex) as again:  # a later subscribe restarts it
            assert bus.hub()._task is not None
            assert await again.next(timeout=0.05) is None
    finally:
        await bus.aclose()


async def test_a_failed_hub_read_returns_none_then_the_hub_recovers(
    redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    bus, publisher = RedisEventBus(redis_url, block_s=0.2), RedisEventBus(redis_url)
    task_id = uuid.uuid4().hex
    failures = 0
    real_xread = bus.client().xread

    async def broken_xread(*args: object, **kwargs: object) -> object:
        nonlocal failures
        failures += 1
        raise RedisConnectionError("connection lost")

    try:
        monkeypatch.setattr(bus.client(), "xread", broken_xread)
        async with bus.subscribe(task_id) as sub:
            assert await sub.next(timeout=10) is None  # the error, not the 10 s timeout
            assert failures >= 1
            monkeypatch.setattr(bus.client(), "xread", real_xread)
            await publisher.publish(_event(task_id, 1))
            # a failure the hub saw while no one waited may still answer one more None
            # ("re-read the DB"), never the end: the event follows
            first = await sub.next(timeout=10)
            event = first if first is not None else await sub.next(timeout=10)
            assert event is not None and event.seq == 1
    finally:
        await bus.aclose()
        await publisher.aclose()


async def test_a_failed_pin_at_stream_open_loses_no_event(
    redis_url: str, sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An overloaded API timed out connecting to Redis for the pin and ended the stream;
    now the stream replays, pins again and re-reads what was published before that pin."""
    await upgrade_async(sqlite_url)
    engine = create_engine(sqlite_url)
    sessions = session_factory(engine)
    bus, publisher = RedisEventBus(redis_url), RedisEventBus(redis_url)
    real_xrevrange = bus.client().xrevrange
    calls = 0

    async def xrevrange_times_out_once(*args: Any, **kwargs: Any) -> Any:
        nonlocal calls
        calls += 1
        if calls == 1:
            raise RedisTimeoutError("Timeout connecting to server")
        return await real_xrevrange(*args, **kwargs)

    monkeypatch.setattr(bus.client(), "xrevrange", xrevrange_times_out_once)
    task_id = await new_task(sessions, start_url=None)

    async def emit(seq: int, type_: str) -> None:
        async with sessions() as s:
            if type_ == "task.finished":
                await repositories.mark_running(s, task_id=task_id, worker_id="t")
                await repositories.finish_task(s, task_id=task_id, status="succeeded")
            row = await repositories.append_event(s, task_id=task_id, seq=seq, type=type_, data={})
            await s.commit()
        await publisher.publish(repositories.event_to_contract(row))

    try:
        await emit(1, "task.started")
        events = stream_events(task_id, 0, gate=ReplayGate(sessions, 2), bus=bus, poll_s=60)
        assert [e.seq for e in await anext(events)] == [1]  # the replay, after the failed pin
        await emit(2, "step.started")  # published before the stream pins again
        await emit(3, "task.finished")
        rest = [e.seq async for batch in events for e in batch]  # not after the 60 s poll
        assert rest == [2, 3] and calls >= 2
    finally:
        await bus.aclose()
        await publisher.aclose()
        await engine.dispose()
