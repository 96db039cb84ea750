"""A person takes the page over (issue 23 item 2): the agent pauses between steps, the
person acts on the live view, "Hand back" resumes the agent with a fresh observation and a
Ledger note of what the person did.

`Takeover` is the run's state, fed by the live room (workers/browser/runtime/live_room.py)
with the person's commands and consulted by the agent's side:

- `request()` ("Take over"): the agent pauses before its next observation
  (`TakeoverBrowser.observe` awaits `agent_turn()`); once it is paused the person may act,
  and the task's clock stands still (up to its allowance, workers/agent/clock.py).
- While an approval or challenge handoff waits (`gated()` wraps the ApprovalGate) the person
  may act too, without a takeover.
- `hand_back()`: the paused agent observes the page as the person left it; what the person
  did (counts of clicks, scrolls and key presses, never the keys themselves: they may be a
  password) becomes one note, which the loop writes into the Ledger (`person_notes()`).

`takeover.started` / `takeover.ended` events are built here, one builder each.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Protocol, runtime_checkable

from app.contracts import EventType
from workers.agent.clock import TaskClock
from workers.agent.people.proxy import BrowserProxy
from workers.agent.protocols import (
    ApprovalDecision,
    ApprovalGate,
    ApprovalRequest,
    Browser,
    EventSink,
    Observation,
)

log = logging.getLogger(__name__)

ACTS = ("click", "wheel", "key")
ACT_WORDS = {"click": "click", "wheel": "scroll", "key": "key press"}
NOTE_KIND = "person"  # the Ledger note's kind


def takeover_started_event(by: str, reason: str) -> Mapping[str, Any]:
    """The agent paused and a person has the page (reason: takeover | approval)."""
    return {"by": by, "reason": reason}


def takeover_ended_event(
    by: str, acts: Mapping[str, int], url: str, held_s: float = 0.0, screenshot: str | None = None
) -> Mapping[str, Any]:
    """The person handed back: how many inputs of each kind they sent, the page they left,
    how long they held it and the artifact id of the page's screenshot at hand-back."""
    return {
        "by": by,
        "acts": {kind: int(acts.get(kind, 0)) for kind in ACTS},
        "url": url,
        "held_s": round(held_s, 1),
        "screenshot": screenshot,
    }


def activity_note(acts: Mapping[str, int], start_url: str, end_url: str, reason: str) -> str:
    """The Ledger's words for what a person did on the page."""
    done = [_count(acts[k], ACT_WORDS[k]) for k in ACTS if acts.get(k)]
    what = ", ".join(done) if done else "no input"
    if start_url != end_url:
        where = f"the page went from {start_url} to {end_url}"
    else:
        where = f"the page stayed at {end_url}"
    return (
        f"A person took over the browser ({reason}): {what}; {where}. "
        "The page below is as they left it."
    )


def _count(n: int, word: str) -> str:
    if n == 1:
        return f"1 {word}"
    return f"{n} {word}{'es' if word.endswith('s') else 's'}"


class Takeover:
    """One run's takeover state; every method runs on the worker's event loop."""

    def __init__(self, sink: EventSink | None = None, clock: TaskClock | None = None) -> None:
        self.sink = sink
        self.clock = clock  # stands still while the person holds the page (clock.py)
        self.requested = False
        self.paused = False
        self.gate_waits = 0
        self.by = ""
        self.acts: Counter[str] = Counter()
        self.start_url = ""
        self._handed_back = asyncio.Event()
        self.count = 0  # takeovers handed back so far
        self._notes: list[str] = []
        self.on_change: Callable[[], Awaitable[None]] | None = None  # the room tells watchers

    @property
    def person_may_act(self) -> bool:
        return self.paused or self.gate_waits > 0

    async def _changed(self) -> None:
        if self.on_change is not None:
            await self.on_change()

    async def request(self, by: str) -> None:
        """ "Take over": the agent pauses before its next step."""
        if not self.requested:
            self.requested, self.by = True, by
            self._handed_back.clear()
            await self._changed()

    async def hand_back(self, by: str) -> None:
        """ "Hand back": a paused agent resumes; a takeover not yet started is called off."""
        if self.requested:
            self.requested, self.by = False, by or self.by
            self._handed_back.set()
            await self._changed()

    def record(self, kind: str, url: str, count: int = 1) -> None:
        """An input the room forwarded to the page (`count` key presses for a typed text)."""
        if not sum(self.acts.values()):
            self.start_url = url
        self.acts[kind] += count

    async def agent_turn(
        self, url: Callable[[], str], shot: Callable[[], Awaitable[bytes]] | None = None
    ) -> None:
        """Between steps: wait while a person has the page; note what they did since. `shot`
        takes the page's screenshot at hand-back, kept when the sink keeps such shots."""
        if self.requested:
            held_from = time.monotonic()
            self.paused = True
            if self.clock is not None:
                self.clock.pause()
            self.start_url = self.start_url or url()
            started = takeover_started_event(self.by, "takeover")
            await self._emit(EventType.takeover_started, started)
            await self._changed()
            try:
                await self._handed_back.wait()
            finally:
                self.paused = False
                if self.clock is not None:
                    self.clock.resume()
            self.count += 1
            kept = await self._keep_shot(shot)
            held = time.monotonic() - held_from
            ended = takeover_ended_event(self.by, self.acts, url(), held, kept)
            await self._emit(EventType.takeover_ended, ended)
            await self._changed()
            self._note("takeover", url())
        elif sum(self.acts.values()):  # inputs during an approval wait
            self._note("while the run waited for a decision", url())

    async def _keep_shot(self, shot: Callable[[], Awaitable[bytes]] | None) -> str | None:
        if shot is None or not isinstance(self.sink, KeepsTakeoverShots):
            return None
        try:
            return await self.sink.save_takeover_shot(self.count, await shot())
        except Exception as exc:  # noqa: BLE001 - a lost picture never stops the run
            log.warning("takeover %d: no screenshot at hand-back: %r", self.count, exc)
            return None

    def _note(self, reason: str, url: str) -> None:
        self._notes.append(activity_note(self.acts, self.start_url or url, url, reason))
        self.acts.clear()
        self.start_url = ""

    def take_notes(self) -> list[str]:
        notes, self._notes = self._notes, []
        return notes

    async def _emit(self, type: str, data: Mapping[str, Any]) -> None:
        if self.sink is not None:
            await self.sink.emit(type, data)

    def gated(self, gate: ApprovalGate) -> ApprovalGate:
        """The gate, with the person allowed to act while it waits."""
        return _WatchedGate(gate, self)


class _WatchedGate:
    def __init__(self, inner: ApprovalGate, takeover: Takeover) -> None:
        self.inner, self.takeover = inner, takeover

    async def request(self, request: ApprovalRequest) -> ApprovalDecision:
        self.takeover.gate_waits += 1
        await self.takeover._changed()
        try:
            return await self.inner.request(request)
        finally:
            self.takeover.gate_waits -= 1
            await self.takeover._changed()


@runtime_checkable
class KeepsTakeoverShots(Protocol):
    """A sink that stores the page's screenshot at each hand-back (artifact kind "takeover",
    numbered 1, 2, ...) and says its artifact id."""

    async def save_takeover_shot(self, number: int, jpeg: bytes) -> str | None: ...


@runtime_checkable
class PersonNotes(Protocol):
    """A browser that knows what a person did on the page since the agent last looked."""

    def person_notes(self) -> list[str]: ...


class TakeoverBrowser(BrowserProxy):
    """The agent's browser: each observation waits for a person who has the page."""

    def __init__(self, inner: Browser, takeover: Takeover) -> None:
        super().__init__(inner)
        self.takeover = takeover

    async def observe(self, mode: str = "compact") -> Observation:
        await self.takeover.agent_turn(lambda: self.inner.url, self.inner.screenshot)
        return await self.inner.observe(mode)

    def person_notes(self) -> list[str]:
        return self.takeover.take_notes()
