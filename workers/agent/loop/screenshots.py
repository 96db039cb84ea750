"""Each step's screenshot, captured while the model thinks and stored off the loop's path.

Issue 13: the capture was 12% of the per-step overhead. The loop starts it right after the
observation, waits for the capture (never for the write) before the step's first action, so the
stored image shows the observed page, and drains what is left when the run ends.
"""

from __future__ import annotations

import asyncio
import contextlib

from workers.agent.protocols import Browser, EventSink


class StepScreenshots:
    """The pending capture of the current step and the writes still running."""

    def __init__(self, browser: Browser, sink: EventSink) -> None:
        self.browser, self.sink = browser, sink
        self._shot: asyncio.Future[bytes] | None = None
        self._saves: set[asyncio.Task[None]] = set()

    def start(self, step: int) -> None:
        """Begin the capture and its write; a failed capture is raised by `captured`."""
        shot = asyncio.ensure_future(self.browser.screenshot())
        self._shot = shot

        async def save() -> None:
            with contextlib.suppress(Exception):
                await self.sink.save_screenshot(step, await asyncio.shield(shot))

        task = asyncio.create_task(save(), name=f"screenshot-{step}")
        self._saves.add(task)
        task.add_done_callback(self._saves.discard)

    async def captured(self) -> None:
        """Wait for the capture, so it shows the observed page and not the page after an action."""
        shot, self._shot = self._shot, None
        if shot is not None:
            await shot  # a browser fault in the capture ends the run as before

    async def drain(self) -> None:
        """At the end of the run: drop a capture nobody waits for, finish the writes."""
        shot, self._shot = self._shot, None
        if shot is not None and not shot.done():
            shot.cancel()
        if self._saves:
            await asyncio.gather(*self._saves, return_exceptions=True)
