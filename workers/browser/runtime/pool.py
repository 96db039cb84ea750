"""One warm Chromium per worker process, a fresh isolated context per task.

Launching Chromium costs far more than opening a context, so the browser stays up between
tasks and is recycled (between tasks, never mid-task) after N tasks or when its process
tree outgrows the memory cap. Opening a context + page + request routing still costs
~300 ms, so one spare, never-used context is prepared in the background after every
acquisition and handed to the next task. Every request a page makes passes the URL policy
twice: the context's router (every request Playwright sees) and the context's own egress
proxy (every connection, redirect hops included), both pinned to the task's allowed_domains
(request_guard.py, prepared.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

from playwright.async_api import Browser, Page, Playwright
from playwright.async_api import Error as PlaywrightError

from app import metrics
from app.settings import Settings
from app.urlpolicy import Resolver, network_policy, system_resolve
from workers.browser.runtime.egress import Connector, open_direct
from workers.browser.runtime.launch import launch_chromium, start_playwright
from workers.browser.runtime.prepared import ContextOptions, Prepared, prepare
from workers.browser.runtime.process_tree import browser_pid, process_alive, tree_rss_mb
from workers.browser.runtime.request_guard import RequestGuard

log = logging.getLogger(__name__)

# the spare is prepared this long after an acquisition: opening a context + page at once
# slows the new task's first page load ~2x (measured: bench/runtime/pool_startup.py)
SPARE_DELAY_S = 0.5


@dataclass(frozen=True)
class PoolStats:
    """Counters for tests, health checks and the startup benchmark."""

    launches: int
    served: int
    active: int
    rss_mb: float
    connected: bool
    spares_used: int  # acquisitions served by a prepared spare context


class BrowserPool:
    """Warm browser + per-task contexts, all on the event loop that called start()."""

    def __init__(
        self,
        settings: Settings,
        *,
        spare_delay_s: float = SPARE_DELAY_S,
        resolve: Resolver = system_resolve,
        connect: Connector = open_direct,
    ) -> None:
        self.settings = settings
        self.spare_delay_s = spare_delay_s
        self.resolve = resolve
        self.connect = connect
        self.policy = network_policy(settings)
        self.options = ContextOptions(
            settings.viewport_width, settings.viewport_height, self.policy, resolve, connect
        )
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._browser_pid: int | None = None
        self._cond = asyncio.Condition()
        self._launching = False
        self._active = 0
        self._served = 0
        self._launches = 0
        self._spares_used = 0
        self._dead: set[int] = set()
        # the spare: waiting SPARE_DELAY_S, being prepared or ready; current browser only
        self._spare: asyncio.Task[Prepared] | None = None
        self._spare_started = False  # past its delay: taking it means awaiting the rest

    async def start(self) -> None:
        """Start Playwright and launch the first browser (so the first task starts warm)."""
        if self._playwright is None:
            self._playwright = await start_playwright(self.settings)
        async with self._cond:
            await self._relaunch()

    async def close(self) -> None:
        async with self._cond:
            await self._close_browser()
            if self._playwright is not None:
                await self._playwright.stop()
                self._playwright = None
            self._report()

    @property
    def ready(self) -> bool:
        """True when a connected browser is waiting for work (readiness probe)."""
        return self._browser is not None and self._browser.is_connected()

    def stats(self) -> PoolStats:
        return PoolStats(
            launches=self._launches,
            served=self._served,
            active=self._active,
            rss_mb=self.rss_mb(),
            connected=self.ready,
            spares_used=self._spares_used,
        )

    def rss_mb(self) -> float:
        """Resident memory of the browser's whole process tree (renderers, GPU, utilities)."""
        return tree_rss_mb(self._browser_pid)

    @contextlib.asynccontextmanager
    async def context(self, *, allowed_domains: Sequence[str] = ()) -> AsyncIterator[Page]:
        """A page in a brand-new context: no cookies, storage or cache shared with other tasks."""
        opened = await self._open_context()
        try:
            opened.egress.bind(tuple(allowed_domains))
            opened.slot.guard = RequestGuard(
                policy=self.policy, allowed_domains=allowed_domains, resolve=self.resolve
            )
            yield opened.page
        finally:
            await opened.close()  # a context a task touched is never reused
            await self._release()

    async def spare_ready(self) -> bool:
        """Wait for the spare being prepared (benchmarks, tests); True if one is ready."""
        spare = self._spare
        if spare is None:
            return False
        await asyncio.wait([spare])
        return not spare.cancelled() and spare.exception() is None

    async def _open_context(self) -> Prepared:
        """Acquire a slot and take the spare or open a context; one retry on a dead browser."""
        for attempt in (1, 2):
            browser = await self._acquire()
            try:
                opened = await self._take_spare(browser) or await prepare(browser, self.options)
            except PlaywrightError:
                self._dead.add(id(browser))
                await self._release()
                if attempt == 2:
                    raise
                continue
            except BaseException:  # cancelled while opening: give the slot back
                await self._release()
                raise
            self._refill(browser, self.spare_delay_s)
            return opened
        raise AssertionError("unreachable")

    async def _take_spare(self, browser: Browser) -> Prepared | None:
        """The spare if it was prepared on `browser` and is intact; usually already done."""
        spare, self._spare = self._spare, None
        if spare is None:
            return None
        if not spare.done() and not self._spare_started:
            spare.cancel()  # still waiting out its delay: opening one now is sooner
            return None
        try:
            opened = await spare
        except PlaywrightError as exc:
            log.info("spare context failed (%s); opening one now", exc)
            return None
        if opened.browser is not browser or opened.page.is_closed():
            await opened.close()
            return None
        self._spares_used += 1
        return opened

    def _refill(self, browser: Browser, delay: float = 0.0) -> None:
        """Prepare the next task's context in the background, unless a recycle is due."""
        if self._spare is not None or browser is not self._browser:
            return
        if self._served >= self.settings.browser_recycle_after_tasks:
            return  # the next task gets a new browser; a spare here would be thrown away

        async def prepare_later() -> Prepared:
            if delay > 0:
                await asyncio.sleep(delay)
                self._spare_started = True
            return await prepare(browser, self.options)

        self._spare_started = delay <= 0  # e.g. right after a (re)launch: take it, await it
        self._spare = asyncio.create_task(prepare_later(), name="browser-pool-spare")
        self._spare.add_done_callback(_retrieve)

    async def _discard_spare(self) -> None:
        spare, self._spare = self._spare, None
        if spare is None:
            return
        spare.cancel()
        with contextlib.suppress(asyncio.CancelledError, PlaywrightError):
            opened = await spare
            await opened.close()

    def _alive(self) -> bool:
        """Connected, and its process has not died before Playwright noticed."""
        if self._browser is None or not self._browser.is_connected():
            return False
        if id(self._browser) in self._dead:
            return False
        return self._browser_pid is None or process_alive(self._browser_pid)

    def _recycle_due(self) -> bool:
        if self._served >= self.settings.browser_recycle_after_tasks:
            return True
        return self.rss_mb() > self.settings.browser_memory_cap_mb

    async def _acquire(self) -> Browser:
        async with self._cond:
            while True:
                if not self._alive():
                    await self._relaunch()  # crashed: tasks on the old browser are failing anyway
                elif self._recycle_due():
                    if self._active:
                        await self._cond.wait()  # drain: recycle only between tasks
                        continue
                    await self._relaunch()
                break
            assert self._browser is not None
            self._active += 1
            self._served += 1
            self._report()
            return self._browser

    async def _release(self) -> None:
        async with self._cond:
            self._active -= 1
            self._report()
            self._cond.notify_all()

    async def _relaunch(self) -> None:
        """Replace the browser; the caller holds the condition lock."""
        if self._playwright is None:
            raise RuntimeError("BrowserPool.start() was not called")
        await self._close_browser()
        self._launching = True
        self._report()
        try:
            started = time.perf_counter()
            browser = await launch_chromium(self._playwright, self.settings)
            self._browser_pid = await browser_pid(browser)
            self._browser = browser
            self._served = 0
            self._launches += 1
            log.info("chromium launched in %.2fs", time.perf_counter() - started)
        finally:
            self._launching = False
            self._report()
        self._refill(browser)

    async def _close_browser(self) -> None:
        await self._discard_spare()
        browser, self._browser, self._browser_pid = self._browser, None, None
        self._dead.clear()
        if browser is not None:
            with contextlib.suppress(PlaywrightError):
                await browser.close()

    def _report(self) -> None:
        up = 1 if self.ready else 0
        metrics.set_browsers("launching", 1 if self._launching else 0)
        metrics.set_browsers("busy", up if self._active else 0)
        metrics.set_browsers("idle", 0 if self._active else up)


def _retrieve(task: asyncio.Task[Prepared]) -> None:
    """Mark a failed spare's exception as seen (the next acquisition opens its own)."""
    if not task.cancelled() and task.exception() is not None:
        log.debug("spare context failed: %r", task.exception())


def is_browser_fault(exc: BaseException) -> bool:
    """True for Playwright errors (crashed browser, closed page) escaping a task."""
    return isinstance(exc, PlaywrightError)
