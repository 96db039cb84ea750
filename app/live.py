"""The live view's relay (issue 23 item 2): screencast frames out, a person's input in.

Worker and API meet here in both deployments, beside the event bus:

- `watch(task_id)` (API): registers a watcher while the context is open and yields the
  task's live messages (frames, who controls the page). A worker screencasts only while a
  task has a watcher (`watchers()`), so an unwatched run costs nothing.
- `publish(task_id, message)` (worker): a frame or a control message to the watchers now;
  nothing is stored (a watcher that is not reading drops the oldest).
- `send(task_id, command)` (API) / `next_command(task_id, timeout)` (worker): takeover,
  hand-back and input commands, in order.

`MemoryLiveHub` serves the embedded deployment (API and workers in one process, any
threads); `RedisLiveHub` the production one: frames over pub/sub (ephemeral by design),
watchers as a sorted set of expiry times (refreshed while watching), commands as a list.
`live_hub(bus)` is the hub that belongs to an event bus, so the API and the worker of one
deployment always share one.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import threading
import time
import uuid
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

WATCH_TTL_S = 6.0  # a watcher that stops refreshing counts no more after this
WATCH_REFRESH_S = 2.0
FEED_SIZE = 4  # messages a slow watcher may lag behind before the oldest are dropped
COMMAND_TTL_S = 60  # commands nobody takes (no worker runs the task) expire
CONTROL_TTL_S = 3600  # who may act on the page, as the worker last said (refreshed on change)
MAX_COMMANDS = 200  # queued per task; a flood is cut to the newest
MAX_TEXT = 1000  # characters in one `text` input


KEY_NAMES = frozenset(
    {"Enter", "Tab", "Backspace", "Delete", "Escape", "Home", "End", "PageUp", "PageDown"}
    | {"ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"}
)


class LiveInput(BaseModel):
    """One input of the person on the live view; x and y are fractions of the shown frame."""

    kind: Literal["click", "wheel", "key", "text"] = Field(
        description="click: a left click at (x, y); wheel: scroll by (dx, dy) at (x, y); "
        "key: one key press (a character or a key name such as Enter); text: a whole string "
        "typed key by key, in order (a newline presses Enter)"
    )
    x: float = Field(default=0.5, ge=0.0, le=1.0, description="0 = left edge, 1 = right edge")
    y: float = Field(default=0.5, ge=0.0, le=1.0, description="0 = top edge, 1 = bottom edge")
    dx: float = Field(default=0.0, ge=-5000, le=5000, description="wheel: pixels to the right")
    dy: float = Field(default=0.0, ge=-5000, le=5000, description="wheel: pixels down")
    key: str = Field(
        default="",
        max_length=16,
        description="key: one character, or Enter, Tab, Backspace, Delete, Escape, "
        "ArrowLeft/Right/Up/Down, Home, End, PageUp, PageDown",
    )
    text: str = Field(
        default="",
        max_length=MAX_TEXT,
        description="text: the characters to type (printable, or a newline for Enter)",
    )

    model_config = ConfigDict(extra="forbid")

    @field_validator("key")
    @classmethod
    def _one_key(cls, key: str) -> str:
        if key and key not in KEY_NAMES and not (len(key) == 1 and key.isprintable()):
            raise ValueError("one printable character or a key name such as Enter")
        return key

    @field_validator("text")
    @classmethod
    def _typeable(cls, text: str) -> str:
        if any(not (c.isprintable() or c == "\n") for c in text):
            raise ValueError("printable characters and newlines only")
        return text

    @model_validator(mode="after")
    def _key_for_key(self) -> LiveInput:
        if self.kind == "key" and not self.key:
            raise ValueError("kind key needs `key`")
        if self.kind == "text" and not self.text:
            raise ValueError("kind text needs `text`")
        return self


# -- the messages and commands (one builder each) --------------------------------------------
def frame_message(jpeg: bytes, width: float, height: float) -> dict[str, Any]:
    """A screencast frame; width and height are the page's viewport in CSS pixels."""
    return {
        "type": "frame",
        "jpeg": base64.b64encode(jpeg).decode("ascii"),
        "width": width,
        "height": height,
    }


def control_message(
    by: Literal["agent", "person"],
    requested: bool,
    task_left_s: float | None = None,
    pause_left_s: float | None = None,
    reason: Literal["takeover", "approval"] | None = None,
) -> dict[str, Any]:
    """Who acts on the page: `person` while the agent is paused for a takeover or waits
    for an approval; `requested`: a takeover was asked for and the agent has not paused yet.
    `task_left_s`: the task's time left (standing still during a takeover); `pause_left_s`:
    how much longer this takeover keeps the task's clock stopped (0 when not paused);
    `reason`: why a person may act (a takeover, or a wait for an approval)."""
    message: dict[str, Any] = {"type": "control", "by": by, "requested": requested}
    if reason is not None:
        message["reason"] = reason
    if task_left_s is not None:
        message["task_left_s"] = round(task_left_s)
    if pause_left_s is not None:
        message["pause_left_s"] = round(pause_left_s)
    return message


def input_command(event: LiveInput) -> dict[str, Any]:
    return {"type": "input", **event.model_dump()}


def takeover_command(by: str) -> dict[str, Any]:
    return {"type": "takeover", "by": by}


def handback_command(by: str) -> dict[str, Any]:
    return {"type": "handback", "by": by}


class LiveHub(Protocol):
    def watch(self, task_id: str) -> contextlib.AbstractAsyncContextManager[LiveFeed]: ...

    async def watchers(self, task_id: str) -> int: ...

    async def publish(self, task_id: str, message: Mapping[str, Any]) -> None: ...

    async def send(self, task_id: str, command: Mapping[str, Any]) -> None: ...

    async def next_command(self, task_id: str, timeout: float) -> dict[str, Any] | None: ...

    async def set_control(self, task_id: str, by: str) -> None:
        """The worker says who may act on the page now ("agent" | "person")."""

    async def control(self, task_id: str) -> str | None:
        """Who may act on the page, as the worker last said (None: it has not said)."""

    def forget(self, task_id: str) -> None: ...


class LiveFeed:
    """One watcher's messages on its own event loop; the oldest are dropped when it lags."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue(maxsize=FEED_SIZE)

    def offer(self, message: dict[str, Any]) -> None:
        if self.queue.full():
            self.queue.get_nowait()
        self.queue.put_nowait(message)

    def offer_threadsafe(self, message: dict[str, Any]) -> None:
        with contextlib.suppress(RuntimeError):  # the watcher's loop is closed
            self.loop.call_soon_threadsafe(self.offer, message)

    async def next(self, timeout: float) -> dict[str, Any] | None:
        try:
            return await asyncio.wait_for(self.queue.get(), timeout)
        except TimeoutError:
            return None


class MemoryLiveHub:
    """The embedded deployment's hub: API and worker threads in one process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._feeds: dict[str, set[LiveFeed]] = {}
        self._commands: dict[str, deque[dict[str, Any]]] = {}
        self._wakers: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Event]] = {}
        self._control: dict[str, str] = {}

    @contextlib.asynccontextmanager
    async def watch(self, task_id: str) -> AsyncIterator[LiveFeed]:
        feed = LiveFeed()
        with self._lock:
            self._feeds.setdefault(task_id, set()).add(feed)
        try:
            yield feed
        finally:
            with self._lock:
                feeds = self._feeds.get(task_id, set())
                feeds.discard(feed)
                if not feeds:
                    self._feeds.pop(task_id, None)

    async def watchers(self, task_id: str) -> int:
        with self._lock:
            return len(self._feeds.get(task_id, ()))

    async def publish(self, task_id: str, message: Mapping[str, Any]) -> None:
        with self._lock:
            feeds = list(self._feeds.get(task_id, ()))
        for feed in feeds:
            feed.offer_threadsafe(dict(message))

    async def send(self, task_id: str, command: Mapping[str, Any]) -> None:
        with self._lock:
            self._commands.setdefault(task_id, deque(maxlen=MAX_COMMANDS)).append(dict(command))
            waker = self._wakers.get(task_id)
        if waker is not None:
            with contextlib.suppress(RuntimeError):
                waker[0].call_soon_threadsafe(waker[1].set)

    async def next_command(self, task_id: str, timeout: float) -> dict[str, Any] | None:
        with self._lock:
            waker = self._wakers.get(task_id)
            if waker is None or waker[0] is not asyncio.get_running_loop():
                waker = self._wakers[task_id] = (asyncio.get_running_loop(), asyncio.Event())
            queued = self._commands.get(task_id)
            if queued:
                return queued.popleft()
            waker[1].clear()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(waker[1].wait(), timeout)
        with self._lock:
            queued = self._commands.get(task_id)
            return queued.popleft() if queued else None

    async def set_control(self, task_id: str, by: str) -> None:
        with self._lock:
            self._control[task_id] = by

    async def control(self, task_id: str) -> str | None:
        with self._lock:
            return self._control.get(task_id)

    def forget(self, task_id: str) -> None:
        """The worker is done with the task: drop its commands, waker and control."""
        with self._lock:
            self._commands.pop(task_id, None)
            self._wakers.pop(task_id, None)
            self._control.pop(task_id, None)


def _key(task_id: str, part: str) -> str:
    return f"webagent:live:{task_id}:{part}"


class RedisLiveHub:
    """The production hub over the event bus's Redis (one client per event loop)."""

    def __init__(self, client: Callable[[], Any]) -> None:
        self.client = client

    @contextlib.asynccontextmanager
    async def watch(self, task_id: str) -> AsyncIterator[LiveFeed]:
        feed = LiveFeed()
        watcher = uuid.uuid4().hex
        pubsub = self.client().pubsub()
        await pubsub.subscribe(_key(task_id, "out"))
        await self._refresh(task_id, watcher)
        pump = asyncio.create_task(self._pump(task_id, watcher, pubsub, feed))
        try:
            yield feed
        finally:
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await pump
            with contextlib.suppress(Exception):  # Redis gone: the entry expires on its own
                await self.client().zrem(_key(task_id, "watchers"), watcher)
            with contextlib.suppress(Exception):
                await pubsub.aclose()

    async def _refresh(self, task_id: str, watcher: str) -> None:
        key = _key(task_id, "watchers")
        async with self.client().pipeline(transaction=False) as pipe:
            pipe.zadd(key, {watcher: time.time() + WATCH_TTL_S})
            pipe.expire(key, int(WATCH_TTL_S * 10))
            await pipe.execute()

    async def _pump(self, task_id: str, watcher: str, pubsub: Any, feed: LiveFeed) -> None:
        refreshed = time.monotonic()
        while True:
            message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
            if message is not None and message.get("type") == "message":
                feed.offer(json.loads(message["data"]))
            if time.monotonic() - refreshed >= WATCH_REFRESH_S:
                await self._refresh(task_id, watcher)
                refreshed = time.monotonic()

    async def watchers(self, task_id: str) -> int:
        key = _key(task_id, "watchers")
        async with self.client().pipeline(transaction=False) as pipe:
            pipe.zremrangebyscore(key, "-inf", time.time())
            pipe.zcard(key)
            _, count = await pipe.execute()
        return int(count)

    async def publish(self, task_id: str, message: Mapping[str, Any]) -> None:
        await self.client().publish(_key(task_id, "out"), json.dumps(dict(message)))

    async def send(self, task_id: str, command: Mapping[str, Any]) -> None:
        key = _key(task_id, "in")
        async with self.client().pipeline(transaction=False) as pipe:
            pipe.rpush(key, json.dumps(dict(command)))
            pipe.ltrim(key, -MAX_COMMANDS, -1)
            pipe.expire(key, COMMAND_TTL_S)
            await pipe.execute()

    async def next_command(self, task_id: str, timeout: float) -> dict[str, Any] | None:
        reply = await self.client().blpop([_key(task_id, "in")], timeout=max(timeout, 0.01))
        if not reply:
            return None
        command: dict[str, Any] = json.loads(reply[1])
        return command

    async def set_control(self, task_id: str, by: str) -> None:
        await self.client().set(_key(task_id, "control"), by, ex=CONTROL_TTL_S)

    async def control(self, task_id: str) -> str | None:
        found = await self.client().get(_key(task_id, "control"))
        return found.decode() if isinstance(found, bytes) else found

    def forget(self, task_id: str) -> None:
        """Commands and the control left over expire with their keys (COMMAND_TTL_S,
        CONTROL_TTL_S); the API answers only for running tasks anyway."""


class NoLiveHub:
    """A bus without a live relay (test doubles): never watched, commands never arrive."""

    @contextlib.asynccontextmanager
    async def watch(self, task_id: str) -> AsyncIterator[LiveFeed]:
        yield LiveFeed()

    async def watchers(self, task_id: str) -> int:
        return 0

    async def publish(self, task_id: str, message: Mapping[str, Any]) -> None:
        return None

    async def send(self, task_id: str, command: Mapping[str, Any]) -> None:
        return None

    async def next_command(self, task_id: str, timeout: float) -> dict[str, Any] | None:
        await asyncio.sleep(timeout)
        return None

    async def set_control(self, task_id: str, by: str) -> None:
        return None

    async def control(self, task_id: str) -> str | None:
        return None

    def forget(self, task_id: str) -> None:
        return None


def live_hub(bus: object) -> LiveHub:
    """The hub that goes with an event bus (its `live` attribute), or none."""
    hub = getattr(bus, "live", None)
    return hub if hub is not None else NoLiveHub()
