"""A running task's live view on the worker (issue 23 item 2): screencast while someone
watches, the person's commands applied.

`LiveRoom.running()` keeps one background loop for the task's lifetime:
- every DEMAND_CHECK_S it asks the hub (app/live.py) how many watch; the screencast
  (screencast.py) runs only while there is one, and a watcher who joins gets the latest frame
  and who has the page. Frames go to the hub and nowhere else: nothing is stored.
- commands from the API, in order: `takeover` / `handback` drive the run's `Takeover`
  (workers/agent/people/takeover.py); `input` is dispatched to the page only while the person may
  act (the agent paused for a takeover, or waiting for an approval), and counted for the
  Ledger note. Input at any other time is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Mapping
from typing import Any, Literal

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page
from pydantic import ValidationError
from redis.exceptions import RedisError

from app.live import LiveHub, LiveInput, control_message, frame_message
from workers.agent.people.takeover import Takeover
from workers.browser.runtime.regions import NO_REGIONS, HiddenRegions
from workers.browser.runtime.screencast import Screencast, UnknownKey

log = logging.getLogger(__name__)

DEMAND_CHECK_S = 1.0
RESEND_S = 2.0  # a still page sends no new frames: the latest one again, for late joiners
RELAY_ERRORS = (RedisError, OSError, PlaywrightError)


class LiveRoom:
    """One task's live view and takeover, on the worker's event loop."""

    def __init__(
        self,
        page: Page,
        hub: LiveHub,
        task_id: str,
        takeover: Takeover,
        regions: HiddenRegions = NO_REGIONS,
    ) -> None:
        self.page, self.hub, self.task_id = page, hub, task_id
        self.takeover = takeover
        self.screen = Screencast(page, regions)
        self.watchers = 0
        self._last: dict[str, Any] | None = None
        self._stopping = False  # set with the loop's cancel, which a relay client may lose
        self._resent_at = 0.0
        takeover.on_change = self._announce

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[LiveRoom]:
        task = asyncio.create_task(self._run(), name=f"live-{self.task_id}")
        try:
            yield self
        finally:
            self._stopping = True
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            self.takeover.on_change = None
            await self.screen.close()
            self.hub.forget(self.task_id)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        next_check = 0.0
        # a cancel the relay client swallowed whole (its read timeout took it for its own)
        # still ends the loop at its next turn, at most a read timeout later
        while not (self._stopping or _being_cancelled()):
            try:
                if loop.time() >= next_check:
                    next_check = loop.time() + DEMAND_CHECK_S
                    await self._follow_demand()
                command = await self.hub.next_command(self.task_id, DEMAND_CHECK_S / 2)
                if command is not None:
                    await self.apply(command)
            except RELAY_ERRORS as exc:  # the relay or the page hiccuped: the run goes on
                if _being_cancelled():  # ...unless it is our cancel, turned into an error
                    raise asyncio.CancelledError from exc
                log.warning("live view of %s: %r", self.task_id, exc)
                await asyncio.sleep(DEMAND_CHECK_S)

    async def _follow_demand(self) -> None:
        count = await self.hub.watchers(self.task_id)
        joined, self.watchers = count > self.watchers, count
        if not count:
            self._last = None
            await self.screen.stop()
            return
        await self.screen.start(self._send_frame)
        now = asyncio.get_running_loop().time()
        if joined or now - self._resent_at >= RESEND_S:
            self._resent_at = now
            await self._announce()
            if self._last is not None:
                await self.hub.publish(self.task_id, self._last)

    async def _send_frame(self, jpeg: bytes, width: float, height: float) -> None:
        self._last = frame_message(jpeg, width, height)
        try:
            await self.hub.publish(self.task_id, self._last)
        except RELAY_ERRORS as exc:
            log.warning("live frame of %s not sent: %r", self.task_id, exc)

    async def _announce(self) -> None:
        t = self.takeover
        requested = t.requested and not t.paused
        by: Literal["agent", "person"] = "person" if t.person_may_act else "agent"
        await self.hub.set_control(self.task_id, by)  # the API refuses input unless "person"
        clock = t.clock
        left = None if clock is None else clock.left_s()
        pause_left = None if clock is None else clock.pause_left_s()
        reason: Literal["takeover", "approval"] | None = (
            "takeover" if t.paused else "approval" if t.gate_waits else None
        )
        message = control_message(by, requested, left, pause_left, reason)
        await self.hub.publish(self.task_id, message)

    async def apply(self, command: Mapping[str, Any]) -> None:
        kind = command.get("type")
        by = str(command.get("by") or "")
        if kind == "takeover":
            await self.takeover.request(by)
        elif kind == "handback":
            await self.takeover.hand_back(by)
        elif kind == "input" and self.takeover.person_may_act:
            await self._input(command)

    async def _input(self, command: Mapping[str, Any]) -> None:
        try:
            event = LiveInput.model_validate({k: v for k, v in command.items() if k != "type"})
            if event.kind == "click":
                await self.screen.click(event.x, event.y)
            elif event.kind == "wheel":
                await self.screen.wheel(event.x, event.y, event.dx, event.dy)
            elif event.kind == "text":
                await self.screen.type_text(event.text)
            else:
                await self.screen.key(event.key)
        except (ValidationError, UnknownKey) as exc:
            # the error's text may quote what the person typed: its kind only
            log.info("live input of %s ignored: %s", self.task_id, type(exc).__name__)
            return
        if event.kind == "text":  # counted as key presses: the keys themselves are never kept
            self.takeover.record("key", self.page.url, len(event.text))
        else:
            self.takeover.record(event.kind, self.page.url)


def _being_cancelled() -> bool:
    """This task has a cancel pending: a relay client's read timeout can surface a cancel
    that landed with it as its own error (issue 35: the production runs that sat in
    `running()`'s exit, awaiting this loop, until their hard timeout)."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0
