"""A crashed browser ends the task at once as `browser_crashed` (issue 13, scenario 3).

Before, a Chromium killed mid-task surfaced only when the next browser call failed (7.3 s
after the kill in the measured run, as a generic `browser_error`), and a model call in flight
ran to its end first. Here the task's page and browser are watched: the renderer's `crash`
event or the browser's `disconnected` event (its process exited: Playwright sees the pipe
close) cancels the running body at once, mid model call or mid action, and the run ends with
`BrowserCrashed`. The pool notices the dead browser on the next acquisition and launches a
new one (workers/browser/runtime/pool.py), so the next task starts on a fresh Chromium.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from playwright.async_api import Browser, Page

from app.contracts import ErrorCode
from workers.agent.errors import BrowserFault

log = logging.getLogger(__name__)


class BrowserCrashed(BrowserFault):
    """Chromium or the task's page crashed: this run cannot go on on that page."""

    code = ErrorCode.browser_crashed


@contextlib.asynccontextmanager
async def crash_watch(page: Page) -> AsyncIterator[None]:
    """Run the body; a crash of `page` or of its browser cancels it and raises BrowserCrashed."""
    holder = asyncio.current_task()
    why: str | None = None

    def fire(reason: str) -> None:
        nonlocal why
        if why is not None:
            return
        why = reason
        log.warning("browser crash detected: %s", reason)
        if holder is not None:
            holder.cancel()

    def on_crash(_: Page) -> None:
        fire("the page crashed (its renderer process is gone)")

    def on_disconnected(_: Browser) -> None:
        fire("Chromium exited or its connection was lost")

    browser = page.context.browser
    page.on("crash", on_crash)
    if browser is not None:
        browser.on("disconnected", on_disconnected)
    try:
        yield
    except asyncio.CancelledError:
        if why is None or holder is None or holder.uncancel() > 0:
            raise  # a cancel from outside (task cancel, shutdown, deadline) stays one
        raise BrowserCrashed(why) from None
    finally:
        page.remove_listener("crash", on_crash)
        if browser is not None:
            browser.remove_listener("disconnected", on_disconnected)
