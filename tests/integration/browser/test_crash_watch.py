"""crash_watch (workers/browser/runtime/crash.py): a renderer crash interrupts the task's work
at once with BrowserCrashed; an ordinary cancel stays a cancel."""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import Page

from app.contracts import ErrorCode
from workers.browser.runtime.crash import BrowserCrashed, crash_watch

pytestmark = pytest.mark.browser


async def test_a_page_crash_interrupts_the_work_in_flight(page: Page) -> None:
    await page.set_content("<p>working</p>")
    cdp = await page.context.new_cdp_session(page)
    started = asyncio.Event()

    async def work() -> None:
        async with crash_watch(page):
            started.set()
            await asyncio.Event().wait()  # a model call that would never return

    runner = asyncio.create_task(work())
    await started.wait()
    # Chromium's own crash of this renderer; the command itself never answers
    crash = asyncio.create_task(cdp.send("Page.crash"))
    try:
        with pytest.raises(BrowserCrashed, match="page crashed") as caught:
            async with asyncio.timeout(30):  # a hang guard, not a speed claim
                await runner
    finally:
        crash.cancel()
        await asyncio.gather(crash, return_exceptions=True)
    assert caught.value.code == ErrorCode.browser_crashed


async def test_a_cancel_from_outside_stays_a_cancel(page: Page) -> None:
    started = asyncio.Event()

    async def work() -> None:
        async with crash_watch(page):
            started.set()
            await asyncio.Event().wait()

    runner = asyncio.create_task(work())
    await started.wait()
    runner.cancel()
    with pytest.raises(asyncio.CancelledError):
        await runner
    assert not page.is_closed()
