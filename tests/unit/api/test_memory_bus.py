"""MemoryEventBus: fan-out per task, publishes from other threads' loops, overflow, cleanup."""

from __future__ import annotations

import asyncio
import threading
import uuid
from datetime import UTC, datetime

from app.contracts import Event
from app.events import MemoryEventBus


def _event(task_id: str, seq: int) -> Event:
    return Event(
        id=uuid.uuid4().hex, task_id=task_id, seq=seq, ts=datetime.now(UTC), type="observation"
    )


async def test_subscribers_receive_only_their_task() -> None:
    bus = MemoryEventBus()
    async with bus.subscribe("a") as sub_a, bus.subscribe("b") as sub_b:
        await bus.publish(_event("a", 1))
        await bus.publish(_event("b", 7))
        got_a = await sub_a.next(timeout=1)
        got_b = await sub_b.next(timeout=1)
        assert got_a is not None and got_a.seq == 1
        assert got_b is not None and got_b.seq == 7
        assert await sub_a.next(timeout=0.01) is None
    assert bus.subscriber_count("a") == bus.subscriber_count("b") == 0


async def test_publish_from_another_thread_and_loop() -> None:
    bus = MemoryEventBus()
    async with bus.subscribe("t") as sub:

        async def worker() -> None:
            for seq in range(1, 51):
                await bus.publish(_event("t", seq))

        thread = threading.Thread(target=asyncio.run, args=(worker(),))
        thread.start()
        seqs = []
        while len(seqs) < 50:
            event = await sub.next(timeout=5)
            assert event is not None
            seqs.append(event.seq)
        thread.join()
    assert seqs == list(range(1, 51))


async def test_events_before_subscription_are_not_delivered() -> None:
    bus = MemoryEventBus()
    await bus.publish(_event("t", 1))
    async with bus.subscribe("t") as sub:
        await bus.publish(_event("t", 2))
        event = await sub.next(timeout=1)
        assert event is not None and event.seq == 2


async def test_full_queue_drops_instead_of_blocking_the_publisher() -> None:
    bus = MemoryEventBus(queue_size=2)
    async with bus.subscribe("t") as sub:
        for seq in range(1, 6):
            bus.publish_threadsafe(_event("t", seq))
        await asyncio.sleep(0)  # let the scheduled deliveries run
        got = [await sub.next(timeout=1), await sub.next(timeout=1)]
        assert [e.seq for e in got if e] == [1, 2]
        assert await sub.next(timeout=0.01) is None


async def test_async_iteration() -> None:
    bus = MemoryEventBus()
    async with bus.subscribe("t") as sub:
        await bus.publish(_event("t", 3))
        event = await anext(aiter(sub))
        assert event.seq == 3
