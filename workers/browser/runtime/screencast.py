"""The page over CDP for the live view (issue 23 item 2): screencast frames out
(`Page.startScreencast`, JPEG), a person's input in (`Input.dispatchMouseEvent`,
`Input.dispatchKeyEvent`).

Private regions stay black: the task's regions are painted by the style sheet of
regions.py; a frame is passed on only when the page's main document has adopted that sheet
and no frame navigated since the last check (js/live_painted.js), otherwise the sheet is
applied again and the frame dropped (the repaint brings the next one). Secret-bearing
elements (secret_boxes.py) are painted before a frame is passed on; no frame is passed on
while a secret is typed, nor one taken before a secret-bearing element was painted.

Input coordinates arrive as fractions of the frame and are mapped onto the viewport in CSS
pixels (the frame's `deviceWidth` / `deviceHeight`).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from playwright.async_api import CDPSession, Frame, Page
from playwright.async_api import Error as PlaywrightError

from app.live import KEY_NAMES
from workers.browser.runtime import secret_boxes
from workers.browser.runtime.regions import NO_REGIONS, HiddenRegions, blackout
from workers.browser.runtime.scripts import js

log = logging.getLogger(__name__)

MAX_FPS = 4.0
JPEG_QUALITY = 60
MAX_SIDE = 1280
# named keys: (key, code, windowsVirtualKeyCode, text typed)
KEYS: dict[str, tuple[str, str, int, str]] = {
    "Enter": ("Enter", "Enter", 13, "\r"),
    "Tab": ("Tab", "Tab", 9, ""),
    "Backspace": ("Backspace", "Backspace", 8, ""),
    "Delete": ("Delete", "Delete", 46, ""),
    "Escape": ("Escape", "Escape", 27, ""),
    "ArrowLeft": ("ArrowLeft", "ArrowLeft", 37, ""),
    "ArrowUp": ("ArrowUp", "ArrowUp", 38, ""),
    "ArrowRight": ("ArrowRight", "ArrowRight", 39, ""),
    "ArrowDown": ("ArrowDown", "ArrowDown", 40, ""),
    "Home": ("Home", "Home", 36, ""),
    "End": ("End", "End", 35, ""),
    "PageUp": ("PageUp", "PageUp", 33, ""),
    "PageDown": ("PageDown", "PageDown", 34, ""),
}

assert frozenset(KEYS) == KEY_NAMES, "every key name the API accepts can be pressed"

FrameSink = Callable[[bytes, float, float], Awaitable[None]]


@lru_cache(maxsize=1)
def _painted_js() -> str:
    return js("live_painted.js")


class UnknownKey(ValueError):
    """A key that is neither one character nor a name in KEYS."""


@dataclass(frozen=True)
class Viewport:
    width: float
    height: float


class Screencast:
    """One page's CDP session for the live view; `start()` / `stop()` follow the watchers."""

    def __init__(self, page: Page, regions: HiddenRegions = NO_REGIONS) -> None:
        self.page = page
        self.regions = regions
        self.casting = False
        size = page.viewport_size
        self.viewport = Viewport(
            float(size["width"]) if size else 1280.0, float(size["height"]) if size else 800.0
        )
        self._cdp: CDPSession | None = None
        self._sink: FrameSink | None = None
        self._sent_at = 0.0
        self._held: bytes | None = None  # the latest frame not sent yet (rate limit)
        self._arrived = self._newest = 0  # order of the frames in, and of the newest kept
        self._trailing: asyncio.TimerHandle | None = None
        self._navigated = True
        self._pending: set[asyncio.Task[None]] = set()
        page.on("framenavigated", self._on_navigated)

    def _on_navigated(self, _: Frame) -> None:
        self._navigated = True

    async def _session(self) -> CDPSession:
        if self._cdp is None:
            self._cdp = await self.page.context.new_cdp_session(self.page)
            self._cdp.on("Page.screencastFrame", self._on_frame)
        return self._cdp

    async def start(self, sink: FrameSink) -> None:
        self._sink = sink
        if self.casting:
            return
        self._navigated = True
        size = {"maxWidth": MAX_SIDE, "maxHeight": MAX_SIDE}
        await (await self._session()).send(
            "Page.startScreencast", {"format": "jpeg", "quality": JPEG_QUALITY, **size}
        )
        self.casting = True

    async def stop(self) -> None:
        if not self.casting or self._cdp is None:
            return
        self.casting = False
        with contextlib.suppress(PlaywrightError):
            await self._cdp.send("Page.stopScreencast")

    async def close(self) -> None:
        await self.stop()
        if self._trailing is not None:
            self._trailing.cancel()
            self._trailing = None
        for task in list(self._pending):
            task.cancel()
        self.page.remove_listener("framenavigated", self._on_navigated)
        if self._cdp is not None:
            with contextlib.suppress(PlaywrightError):
                await self._cdp.detach()
            self._cdp = None

    def _on_frame(self, params: dict[str, Any]) -> None:
        self._arrived += 1  # frames are handled concurrently: their order is kept here
        task = asyncio.get_running_loop().create_task(self._frame(params, self._arrived))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _frame(self, params: dict[str, Any], order: int) -> None:
        cdp = self._cdp
        if cdp is None:
            return
        try:
            await cdp.send("Page.screencastFrameAck", {"sessionId": params.get("sessionId")})
            meta = params.get("metadata") or {}
            width, height = meta.get("deviceWidth"), meta.get("deviceHeight")
            if width and height:
                self.viewport = Viewport(float(width), float(height))
            if not self.casting or self._sink is None or not await self._private_safe():
                return
            if order < self._newest:  # a later frame got here first: this one is stale
                return
            taken_at = float(meta.get("timestamp") or time.time())
            if not await secret_boxes.frame_safe(self.page, taken_at):
                return  # drawn before a typed secret was painted over: never shown
            if order < self._newest:  # a later frame got here while this one was checked
                return
            self._newest = order
            self._held = base64.b64decode(params.get("data", ""))
            wait = self._sent_at + 1.0 / MAX_FPS - time.monotonic()
            if wait > 0:  # too soon: the latest frame goes out when the interval is over
                if self._trailing is None:
                    self._trailing = asyncio.get_running_loop().call_later(wait, self._flush)
                return
            await self._send_held()
        except PlaywrightError as exc:  # the page or its session went away
            log.debug("live frame dropped: %r", exc)

    def _flush(self) -> None:
        self._trailing = None
        task = asyncio.get_running_loop().create_task(self._send_held())
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _send_held(self) -> None:
        """The latest frame, if any: a burst (a scroll, an animation) ends on its last frame,
        never on one the rate limit skipped over (issue 37 item 1: a stale half-painted
        frame stayed on the live picture after a scroll)."""
        jpeg, self._held = self._held, None
        if jpeg is None or not self.casting or self._sink is None:
            return
        self._sent_at = time.monotonic()
        await self._sink(jpeg, self.viewport.width, self.viewport.height)

    async def _private_safe(self) -> bool:
        """May this frame be shown? Without private regions always; with them only when the
        page has its black boxes and has not navigated since they were painted."""
        if not self.regions:
            return True
        navigated, self._navigated = self._navigated, False
        painted = await self.page.main_frame.evaluate(_painted_js())
        if navigated or not painted:
            await blackout(self.page, self.regions)
            return False
        return True

    # -- input ----------------------------------------------------------------------------
    def _point(self, x: float, y: float) -> tuple[float, float]:
        return round(x * self.viewport.width, 1), round(y * self.viewport.height, 1)

    async def click(self, x: float, y: float) -> None:
        cdp = await self._session()
        px, py = self._point(x, y)
        await cdp.send("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": px, "y": py})
        for kind in ("mousePressed", "mouseReleased"):
            await cdp.send(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": px, "y": py, "button": "left", "clickCount": 1},
            )

    async def wheel(self, x: float, y: float, dx: float, dy: float) -> None:
        px, py = self._point(x, y)
        await (await self._session()).send(
            "Input.dispatchMouseEvent",
            {"type": "mouseWheel", "x": px, "y": py, "deltaX": dx, "deltaY": dy},
        )

    async def key(self, name: str) -> None:
        cdp = await self._session()
        if name in KEYS:
            key, code, vk, text = KEYS[name]
            down: dict[str, Any] = {"type": "keyDown" if text else "rawKeyDown", "key": key}
            down.update({"code": code, "windowsVirtualKeyCode": vk})
            if text:
                down["text"] = text
            await cdp.send("Input.dispatchKeyEvent", down)
            up = {"type": "keyUp", "key": key, "code": code, "windowsVirtualKeyCode": vk}
            await cdp.send("Input.dispatchKeyEvent", up)
            return
        if len(name) != 1 or not name.isprintable():
            raise UnknownKey(name)
        await cdp.send("Input.dispatchKeyEvent", {"type": "keyDown", "key": name, "text": name})
        await cdp.send("Input.dispatchKeyEvent", {"type": "keyUp", "key": name})

    async def type_text(self, text: str) -> None:
        """A whole string, key by key in order (each awaited before the next is sent); a
        newline presses Enter."""
        for char in text:
            await self.key("Enter" if char == "\n" else char)
