"""Settle on evidence after an action, instead of a fixed pause (issue 13, per-step overhead).

Every action used to wait a fixed 0.3 s before its effect was read, 52% of the framework's
per-step overhead. Now the wait ends as soon as the page shows it is done:

- network idle: no request the page started after the action is still in flight
  (event streams, web sockets and media are long-lived by design and not waited for);
- a quiet DOM window: no mutation for `quiet_s` in the main document and the action's frame
  (js/settle.js; ambient mutations of clocks and tickers, as js/verify_tracker.js classifies
  them, do not count). The window starts when the page last moved since the action was
  armed (its input event or a later mutation, as the tracker saw them), not when the check
  arrives; it is `sync_quiet_s` when the input's own handler changed the DOM synchronously
  (what is left to come then is its microtasks and the next frame; a request it started is
  waited for as network);

both within a cap, so a page that never rests costs at most `cap_s`. A navigation the action
started is followed to `domcontentloaded` (within the cap) and the new document is watched.
The effect check itself (verify.py, seed 002 verify-act-verify) runs after this and still
waits for late evidence when none has shown yet, so ghost detection is unchanged.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

from playwright.async_api import Error, Frame, Page, Request

from workers.browser.runtime.scripts import js

QUIET_S = 0.05  # no DOM mutation for this long = the page has reacted
SYNC_QUIET_S = 0.02  # ... when the input's own handler changed the DOM (a frame and a bit)
CAP_S = 1.0  # the longest a page that never rests can hold an action
ROUNDS = 3  # quiet → wait for the network → quiet again (responses re-render)
GRACE_S = 0.25  # beyond the cap, for the evaluate round trip itself
LONG_LIVED = frozenset({"eventsource", "websocket", "media"})


@dataclass(frozen=True)
class SettleConfig:
    quiet_s: float = QUIET_S
    cap_s: float = CAP_S
    sync_quiet_s: float = SYNC_QUIET_S


@dataclass(frozen=True)
class Settled:
    """How the wait ended: `quiet` and `idle` both true unless the cap cut it short."""

    waited_s: float
    quiet: bool
    idle: bool
    mutations: int
    requests: int
    window_s: float = 0.0  # the quiet window the last look used (quiet_s or sync_quiet_s)
    # the effect tracker's account (verify.js "collect"), read in the same call as the last
    # look when the caller asked for it (`read`): None when that look did not read it
    summary: Mapping[str, Any] | None = None


class NetworkWatch:
    """Requests the page started since `start()` (or the last `mark()`) that have not
    finished or failed yet. A session keeps one watch per page for its whole life and marks
    it before each action: adding and removing the listeners per action cost a protocol
    round trip each (Playwright subscribes to request events on demand)."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.pending: set[Request] = set()
        self.started = 0
        self._idle = asyncio.Event()
        self._idle.set()

    def start(self) -> NetworkWatch:
        self.page.on("request", self._on_request)
        self.page.on("requestfinished", self._on_done)
        self.page.on("requestfailed", self._on_done)
        return self

    def mark(self) -> NetworkWatch:
        """Count from now on: requests still in flight from before are not waited for."""
        self.pending.clear()
        self.started = 0
        self._idle.set()
        return self

    def stop(self) -> None:
        for name, fn in (
            ("request", self._on_request),
            ("requestfinished", self._on_done),
            ("requestfailed", self._on_done),
        ):
            self.page.remove_listener(name, fn)

    @property
    def idle(self) -> bool:
        return not self.pending

    async def wait_idle(self, timeout: float) -> bool:
        if self.idle:
            return True
        try:
            await asyncio.wait_for(self._idle.wait(), max(0.0, timeout))
        except TimeoutError:
            return False
        return True

    def _on_request(self, request: Request) -> None:
        if request.resource_type in LONG_LIVED:
            return
        self.started += 1
        self.pending.add(request)
        self._idle.clear()

    def _on_done(self, request: Request) -> None:
        self.pending.discard(request)
        if not self.pending:
            self._idle.set()


# what ends a read's tracker session: verify.py's `end` (True, "effect" or False)
ReadEnd = bool | str
Look = tuple[bool, int, float, Mapping[str, Any] | None]


@cache
def _settle_read_js() -> str:
    """settle.js, then (once quiet) the effect tracker's account, verify.js "collect", in the
    same call (issue 35): the effect check's first read costs no round trip of its own."""
    return (
        f"async (arg) => {{\nconst out = await ({js('settle.js')})(arg);\n"
        f"if (out.quiet) out.summary = ({js('verify.js')})(['collect', null, arg.end]);\n"
        "return out;\n}"
    )


async def _quiet(
    frame: Frame, config: SettleConfig, cap_s: float, end: ReadEnd | None = None
) -> Look:
    """(quiet reached, mutations counted, the window used, the tracker's account when `end`
    asked for it) for one document; a navigation is followed."""
    quiet = {"quietMs": config.quiet_s * 1000, "syncQuietMs": config.sync_quiet_s * 1000}
    arg: dict[str, Any] = {**quiet, "capMs": cap_s * 1000}
    script = js("settle.js")
    if end is not None:
        arg["end"], script = end, _settle_read_js()
    try:
        async with asyncio.timeout(cap_s + GRACE_S):  # a page blocked in a dialog or a hang
            out = await frame.evaluate(script, arg)
    except TimeoutError:
        return False, 0, config.quiet_s, None
    except Error:  # the document went away: a navigation started; wait for the new one
        with contextlib.suppress(Error):
            await frame.wait_for_load_state("domcontentloaded", timeout=cap_s * 1000)
        return False, 1, config.quiet_s, None
    summary = out.get("summary")
    window = float(out["windowMs"]) / 1000
    return bool(out["quiet"]), int(out["mutations"]), window, summary


async def until_settled(
    page: Page,
    watch: NetworkWatch,
    frame: Frame | None = None,
    config: SettleConfig = SettleConfig(),
    read: Callable[[], ReadEnd] | None = None,
) -> Settled:
    """Wait for a quiet DOM window and network idle, at most `config.cap_s`. With `read`
    (the main frame's armed effect session: how a read may end it), a look made while the
    network is idle also reads the tracker's account (Settled.summary, issue 35: the effect
    check's first read then costs no round trip of its own)."""
    started = time.monotonic()
    deadline = started + config.cap_s
    frames = [page.main_frame]
    if frame is not None and frame != page.main_frame:
        frames.append(frame)
        read = None  # the target's frame and the main page are read separately (verify.py)
    quiet, mutations, window = False, 0, config.quiet_s
    summary: Mapping[str, Any] | None = None
    for _ in range(ROUNDS):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            break
        end = read() if read is not None and watch.idle else None
        looks = await asyncio.gather(*(_quiet(f, config, remaining, end) for f in frames))
        quiet = all(look[0] for look in looks)
        mutations += sum(look[1] for look in looks)
        window = max(look[2] for look in looks)
        if summary is None or not summary.get("ended"):  # an ended session's account stays
            summary = looks[0][3]  # else the latest look's (None: it read nothing)
        if quiet and watch.idle:
            break
        # responses still to come (or a new document): wait for them, then look again
        if not await watch.wait_idle(deadline - time.monotonic()):
            break
    return Settled(
        waited_s=round(time.monotonic() - started, 4),
        quiet=quiet,
        idle=watch.idle,
        mutations=mutations,
        requests=watch.started,
        window_s=window,
        summary=summary,
    )
