"""The task's clock (issue 37 item 1): its deadline stands still while a person holds the
page in a takeover, up to a stated total per run (`takeover_pause_max_s`); past that the
clock runs again, so a forgotten takeover still ends at the deadline plus the allowance.

Timeouts taken with `bounded()` (the loop's per-step budget, the job's outer one) follow the
clock: a pause moves them out by the whole allowance left, the resume back to the time the
pause really took. Deadlines are time.monotonic() values, as `asyncio` loops keep time.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable


class TaskClock:
    """One run's deadline; every method runs on the worker's event loop."""

    def __init__(
        self,
        deadline: float,
        max_pause_s: float = 0.0,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.base = deadline
        self.max_pause_s = max(0.0, max_pause_s)
        self.paused_s = 0.0  # credited so far, at most max_pause_s
        self._now = now
        self._since: float | None = None
        self._timeouts: list[tuple[asyncio.Timeout, float]] = []

    @property
    def paused(self) -> bool:
        return self._since is not None

    def allowance_s(self) -> float:
        """Pause time the run has left, the current pause's not yet deducted."""
        return max(0.0, self.max_pause_s - self.paused_s)

    @property
    def deadline(self) -> float:
        """When the run must end: later by the pauses so far, and while paused by the whole
        allowance left (the clock runs again once that is used up)."""
        return self.base + self.paused_s + (self.allowance_s() if self.paused else 0.0)

    def left_s(self) -> float:
        """The agent's time left; while paused, as it was when the pause began (until the
        allowance runs out)."""
        now = self._now()
        if self._since is not None:
            now = self._since + max(0.0, (now - self._since) - self.allowance_s())
        return max(0.0, self.base + self.paused_s - now)

    def pause_left_s(self) -> float:
        """How much longer the current pause stops the clock (0 when not paused)."""
        if self._since is None:
            return 0.0
        return max(0.0, self.allowance_s() - (self._now() - self._since))

    def pause(self) -> None:
        if self._since is None:
            self._since = self._now()
            self._reschedule()

    def resume(self) -> None:
        if self._since is not None:
            took = self._now() - self._since
            self.paused_s += min(took, self.allowance_s())
            self._since = None
            self._reschedule()

    @contextlib.asynccontextmanager
    async def bounded(self, slack_s: float = 0.0) -> AsyncIterator[asyncio.Timeout]:
        """An `asyncio.timeout` at the deadline (plus `slack_s`) that follows the clock."""
        async with asyncio.timeout_at(self.deadline + slack_s) as budget:
            entry = (budget, slack_s)
            self._timeouts.append(entry)
            try:
                yield budget
            finally:
                self._timeouts.remove(entry)

    def _reschedule(self) -> None:
        for budget, slack_s in self._timeouts:
            if not budget.expired():
                budget.reschedule(self.deadline + slack_s)
