"""Live event bus (Redis Streams | in-memory); the DB-replay-then-tail stream is app.event_stream.

Workers write each event to the DB first, then publish; the bus is only the low-latency
path, so a lost live event is recovered from the DB (gap backfill, idle polling).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import weakref
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable
from types import TracebackType
from typing import Any, Protocol

import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from app.contracts import Event, stream_key
from app.db import repositories
from app.live import MemoryLiveHub, RedisLiveHub

log = logging.getLogger(__name__)

SessionFactory = Callable[[], Any]  # async_sessionmaker[AsyncSession]: `async with f() as s`


class Subscription(ABC):
    """Live tail of one task's events, registered on enter: nothing published later is missed."""

    @abstractmethod
    async def start(self) -> None: ...

    @abstractmethod
    async def close(self) -> None: ...

    @abstractmethod
    async def next(self, timeout: float) -> Event | None:
        """Next live event, or None after `timeout` seconds without one (cancel-safe)."""

    def ready(self) -> list[Event]:
        """The live events already delivered after the last one read (no waiting)."""
        return []

    async def __aenter__(self) -> Subscription:
        await self.start()
        return self

    async def __aexit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Event:
        while True:
            event = await self.next(timeout=30.0)
            if event is not None:
                return event


class EventBus(Protocol):
    async def publish(self, event: Event) -> None:
        """Deliver to live subscribers; callable from any thread's event loop."""

    def subscribe(self, task_id: str) -> Subscription:
        """Live tail; use `async with bus.subscribe(id) as sub` to register before reading."""


class _MemorySubscription(Subscription):
    def __init__(self, bus: MemoryEventBus, task_id: str, maxsize: int) -> None:
        self._bus = bus
        self.task_id = task_id
        self.queue: asyncio.Queue[Event] = asyncio.Queue(maxsize=maxsize)
        self.loop: asyncio.AbstractEventLoop | None = None
        self.dropped = 0

    async def start(self) -> None:
        if self.loop is None:
            self.loop = asyncio.get_running_loop()
            self._bus._add(self)

    async def close(self) -> None:
        self._bus._remove(self)

    def offer(self, event: Event) -> None:
        """Runs on the subscriber's loop; a full queue drops (the reader backfills from the DB)."""
        try:
            self.queue.put_nowait(event)
        except asyncio.QueueFull:
            self.dropped += 1

    async def next(self, timeout: float) -> Event | None:
        await self.start()
        try:
            return await asyncio.wait_for(self.queue.get(), timeout)
        except TimeoutError:
            return None

    def ready(self) -> list[Event]:
        events = []
        while not self.queue.empty():
            events.append(self.queue.get_nowait())
        return events


class MemoryEventBus:
    """In-process bus for the embedded deployment: per-subscriber queue, thread-safe fan-out."""

    def __init__(self, queue_size: int = 1000) -> None:
        self._lock = threading.Lock()
        self._subs: dict[str, set[_MemorySubscription]] = {}
        self._queue_size = queue_size
        self.live = MemoryLiveHub()  # the live view's relay (app/live.py)

    def subscribe(self, task_id: str) -> Subscription:
        return _MemorySubscription(self, task_id, self._queue_size)

    async def publish(self, event: Event) -> None:
        self.publish_threadsafe(event)

    def publish_threadsafe(self, event: Event) -> None:
        """Fan out without awaiting: usable from sync code on any thread."""
        with self._lock:
            subs = list(self._subs.get(event.task_id, ()))
        for sub in subs:
            assert sub.loop is not None
            try:
                sub.loop.call_soon_threadsafe(sub.offer, event)
            except RuntimeError:  # subscriber's loop is closed
                self._remove(sub)

    def subscriber_count(self, task_id: str) -> int:
        with self._lock:
            return len(self._subs.get(task_id, ()))

    def _add(self, sub: _MemorySubscription) -> None:
        with self._lock:
            self._subs.setdefault(sub.task_id, set()).add(sub)

    def _remove(self, sub: _MemorySubscription) -> None:
        with self._lock:
            subs = self._subs.get(sub.task_id)
            if subs is not None:
                subs.discard(sub)
                if not subs:
                    del self._subs[sub.task_id]


def encode_event(event: Event) -> str:
    return event.model_dump_json()


def decode_event(raw: str | bytes) -> Event:
    return Event.model_validate_json(raw)


def _entry_key(entry_id: str) -> tuple[int, int]:
    ms, _, seq = entry_id.partition("-")
    return int(ms), int(seq or 0)


class _RedisSubscription(Subscription):
    """One task's live tail, fed by its loop's `_StreamHub` (no Redis connection of its own)."""

    def __init__(self, bus: RedisEventBus, task_id: str) -> None:
        self._bus = bus
        self.key = stream_key(task_id)
        self.last_id: str | None = None
        self.buffer: deque[Event] = deque()
        self.wake = asyncio.Event()
        self.failed = False
        self._hub: _StreamHub | None = None

    async def start(self) -> None:
        """Pin the stream position now: the hub delivers every entry after it, none before."""
        if self.last_id is None:
            hub = self._bus.hub()
            async with hub.commands:
                newest: Any = await self._bus.client().xrevrange(self.key, "+", "-", count=1)
            self.last_id = _text(newest[0][0]) if newest else "0-0"
            self._hub = hub
            hub.add(self)

    async def __aenter__(self) -> Subscription:
        """Pin now; a Redis error is left to next(), which pins again and has the caller
        re-read the DB, so nothing published before the late pin is missed."""
        try:
            await self.start()
        except (RedisConnectionError, RedisTimeoutError) as exc:
            log.warning("event bus pin failed for %s: %r", self.key, exc)
            self.failed = True
        return self

    async def close(self) -> None:
        if self._hub is not None:
            self._hub.remove(self)
            self._hub = None
        self.buffer.clear()

    def offer(self, entry_id: str, event: Event | None) -> None:
        """Hub callback: keep entries after this subscription's pin, in stream order."""
        assert self.last_id is not None
        if _entry_key(entry_id) <= _entry_key(self.last_id):
            return
        self.last_id = entry_id
        if event is not None:
            self.buffer.append(event)
            self.wake.set()

    def fail(self) -> None:
        self.failed = True
        self.wake.set()

    def ready(self) -> list[Event]:
        events = list(self.buffer)
        self.buffer.clear()
        return events

    async def next(self, timeout: float) -> Event | None:
        """Wait for the hub to deliver; a Redis error is not the stream's end.

        The caller re-reads the DB on None, so a failed hub read makes this wait a short
        while and return None, as the per-subscription reader did before.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while not self.buffer:
            remaining = deadline - loop.time()
            if remaining <= 0:
                return None
            try:
                await self.start()
            except (RedisConnectionError, RedisTimeoutError) as exc:
                log.warning("event bus pin failed for %s: %r", self.key, exc)
                self.failed = True
            if self.failed:
                self.failed = False
                await asyncio.sleep(min(max(deadline - loop.time(), 0.0), 1.0))
                return None
            self.wake.clear()
            try:
                async with asyncio.timeout(remaining):  # no task per call, unlike wait_for
                    await self.wake.wait()
            except TimeoutError:
                return None
        return self.buffer.popleft()


class _StreamHub:
    """One XREAD BLOCK over every subscribed stream key of one event loop (one connection).

    Each key is read from the lowest last-seen id of its subscribers; every subscriber
    drops entries at or before its own pin. A key added while the hub is blocked is read
    from the next slice (`block_s`, below the socket timeout). The task ends when the last
    subscription closes; the next subscribe starts a new one.
    """

    def __init__(self, bus: RedisEventBus) -> None:
        self._bus = bus
        self.subs: dict[str, set[_RedisSubscription]] = {}
        self.commands = asyncio.Semaphore(2)  # bounds concurrent pins (XREVRANGE) per loop
        self._task: asyncio.Task[None] | None = None

    def add(self, sub: _RedisSubscription) -> None:
        self.subs.setdefault(sub.key, set()).add(sub)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._run())

    def remove(self, sub: _RedisSubscription) -> None:
        subs = self.subs.get(sub.key)
        if subs is not None:
            subs.discard(sub)
            if not subs:
                del self.subs[sub.key]

    async def aclose(self) -> None:
        self.subs.clear()
        task, self._task = self._task, None
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _run(self) -> None:
        while self.subs:
            try:
                await self._read_once()
            except (RedisConnectionError, RedisTimeoutError) as exc:
                log.warning("event bus read failed for %d streams: %r", len(self.subs), exc)
                for subs in list(self.subs.values()):
                    for sub in list(subs):
                        sub.fail()
                await asyncio.sleep(0.5)
        self._task = None  # no await since the check: add() starts a new task when needed

    async def _read_once(self) -> None:
        streams: dict[Any, Any] = {
            key: min((s.last_id for s in subs if s.last_id), key=_entry_key)
            for key, subs in self.subs.items()
        }
        block_ms = max(1, int(self._bus.block_s * 1000))
        reply: Any = await self._bus.client().xread(streams, count=100, block=block_ms)
        for stream, entries in reply or ():
            subs = list(self.subs.get(_text(stream), ()))
            for entry_id, fields in entries:
                raw = fields.get(b"event", fields.get("event"))
                event = decode_event(raw) if raw is not None else None
                for sub in subs:
                    sub.offer(_text(entry_id), event)


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value


class RedisEventBus:
    """Redis Streams bus: XADD MAXLEN ~ per task stream, XREAD BLOCK to tail (never pub/sub).

    All live subscriptions of one event loop share one `_StreamHub`, so an API process holds
    one blocking Redis connection however many SSE streams it serves.
    """

    def __init__(
        self, redis_url: str, maxlen: int = 10000, *, ttl_s: int = 86400, block_s: float = 1.0
    ) -> None:
        self.redis_url = redis_url
        self.block_s = block_s  # one XREAD BLOCK slice: must stay below the socket timeout
        self.maxlen = maxlen
        self.ttl_s = ttl_s
        self.live = RedisLiveHub(self.client)  # the live view's relay (app/live.py)
        # one client per event loop: redis.asyncio connections are bound to the loop that made them
        self._clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, aioredis.Redis] = (
            weakref.WeakKeyDictionary()
        )
        self._hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _StreamHub] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()

    def hub(self) -> _StreamHub:
        """The running loop's stream reader (created on first use)."""
        loop = asyncio.get_running_loop()
        with self._lock:
            hub = self._hubs.get(loop)
            if hub is None:
                hub = _StreamHub(self)
                self._hubs[loop] = hub
            return hub

    def client(self) -> aioredis.Redis:
        loop = asyncio.get_running_loop()
        with self._lock:
            client = self._clients.get(loop)
            if client is None:
                client = aioredis.Redis.from_url(self.redis_url)
                self._clients[loop] = client
            return client

    async def publish(self, event: Event) -> None:
        key = stream_key(event.task_id)
        async with self.client().pipeline(transaction=False) as pipe:
            pipe.xadd(key, {"event": encode_event(event)}, maxlen=self.maxlen, approximate=True)
            pipe.expire(key, self.ttl_s)
            await pipe.execute()

    def subscribe(self, task_id: str) -> Subscription:
        return _RedisSubscription(self, task_id)

    async def aclose(self) -> None:
        """Stop the running loop's hub and close the client it owns."""
        loop = asyncio.get_running_loop()
        with self._lock:
            hub = self._hubs.pop(loop, None)
            client = self._clients.pop(loop, None)
        if hub is not None:
            await hub.aclose()
        if client is not None:
            await client.aclose()


def event_from_row(row: Any) -> Event:
    """Persisted TaskEvent row → contract Event."""
    return repositories.event_to_contract(row)
