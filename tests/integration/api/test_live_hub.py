"""The live view's relay (app/live.py) in both deployments: a watcher counts while its
context is open, frames published from another thread's loop reach it (none are kept for
later watchers), and commands arrive in order; Redis-backed and in-memory alike."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

import pytest

from app.events import MemoryEventBus, RedisEventBus
from app.live import LiveHub, LiveInput, frame_message, input_command, live_hub, takeover_command


class Side:
    """The API side's hub, and how the worker side (another thread's loop) reaches it."""

    def __init__(self, hub: LiveHub, worker_bus: Callable[[], Any]) -> None:
        self.hub, self.worker_bus = hub, worker_bus

    def worker(self, work: Callable[[LiveHub], Coroutine[Any, Any, Any]]) -> Any:
        """Run `work` on a worker's loop in another thread (embedded: same process; the
        production worker's own Redis client stands for another process)."""

        async def run() -> Any:
            bus = self.worker_bus()
            try:
                return await work(live_hub(bus))
            finally:
                close = getattr(bus, "aclose", None)
                if close is not None:
                    await close()

        box: list[Any] = []
        thread = threading.Thread(target=lambda: box.append(asyncio.run(run())))
        thread.start()
        thread.join()
        return box[0]


@pytest.fixture(params=["memory", pytest.param("redis", marks=pytest.mark.redis)])
async def side(request: pytest.FixtureRequest) -> AsyncIterator[Side]:
    if request.param == "memory":
        bus = MemoryEventBus()
        yield Side(live_hub(bus), lambda: bus)
        return
    url = request.getfixturevalue("redis_url")
    api_bus = RedisEventBus(url)
    try:
        yield Side(live_hub(api_bus), lambda: RedisEventBus(url))
    finally:
        await api_bus.aclose()


async def test_frames_reach_a_watcher_and_only_while_it_watches(side: Side) -> None:
    hub, task_id = side.hub, uuid.uuid4().hex
    assert await hub.watchers(task_id) == 0
    frame = frame_message(b"\xff\xd8jpeg", 1280, 800)
    async with hub.watch(task_id) as feed:
        assert await asyncio.to_thread(side.worker, lambda h: h.watchers(task_id)) == 1
        await asyncio.to_thread(side.worker, lambda h: h.publish(task_id, frame))
        got = await feed.next(timeout=10)
    assert got == frame and got["jpeg"] == "/9hqcGVn"
    await asyncio.to_thread(side.worker, lambda h: h.publish(task_id, frame))
    async with hub.watch(task_id) as late:
        assert await late.next(timeout=0.3) is None  # nothing was stored for later
    assert await hub.watchers(task_id) == 0


async def test_commands_arrive_in_order_across_threads(side: Side) -> None:
    hub, task_id = side.hub, uuid.uuid4().hex
    sent = [takeover_command("local"), input_command(LiveInput(kind="click", x=0.25, y=0.5))]
    for command in sent:
        await hub.send(task_id, command)

    async def take(worker_hub: LiveHub) -> list[Any]:
        got = [await worker_hub.next_command(task_id, 5) for _ in range(2)]
        return [*got, await worker_hub.next_command(task_id, 0.2)]

    got = await asyncio.to_thread(side.worker, take)
    assert got[:2] == sent and got[2] is None
