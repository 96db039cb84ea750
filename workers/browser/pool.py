"""One warm Chromium per worker process, a fresh isolated context per task.

Launching Chromium costs far more than opening a context, so the browser stays up between
tasks and is recycled (between tasks, never mid-task) after N tasks or when its process
tree outgrows the memory cap. Every request a page makes passes the URL policy in code.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

import psutil
from playwright.async_api import (
    Browser,
    BrowserContext,
    Page,
    Playwright,
    Request,
    Route,
    WebSocketRoute,
    async_playwright,
)
from playwright.async_api import Error as PlaywrightError

from app import metrics
from app.settings import Settings
from app.urlpolicy import check_url_async
from workers.browser.launch import launch_chromium

log = logging.getLogger(__name__)

# Schemes that never reach the network; everything else must pass the URL policy.
LOCAL_SCHEMES = frozenset({"data", "blob", "about", "chrome-error"})
BLOCK_ERROR = "blockedbyclient"


@dataclass(frozen=True)
class PoolStats:
    """Counters for tests, health checks and the startup benchmark."""

    launches: int
    served: int
    active: int
    rss_mb: float
    connected: bool


class RequestGuard:
    """Per-context URL policy: private networks for every request, allowlist for navigations."""

    def __init__(self, *, allow_private: bool, allowed_domains: Sequence[str]) -> None:
        self.allow_private = allow_private
        self.allowed_domains = tuple(allowed_domains)
        self.blocked: list[tuple[str, str]] = []
        self._cache: dict[tuple[str, bool], str | None] = {}

    @property
    def needed(self) -> bool:
        return not self.allow_private or bool(self.allowed_domains)

    async def reason(self, url: str, *, navigation: bool) -> str | None:
        """Why `url` may not be fetched, or None; resolved once per origin per task."""
        parts = urlsplit(url)
        if parts.scheme.lower() in LOCAL_SCHEMES:
            return None
        key = (f"{parts.scheme}://{parts.netloc}".lower(), navigation)
        if key not in self._cache:
            self._cache[key] = await check_url_async(
                url,
                allow_private=self.allow_private,
                allowed_domains=self.allowed_domains if navigation else (),
            )
        reason = self._cache[key]
        if reason:
            self.blocked.append((url, reason))
        return reason

    async def on_request(self, route: Route, request: Request) -> None:
        reason = await self.reason(request.url, navigation=request.is_navigation_request())
        with contextlib.suppress(PlaywrightError):  # the page may be gone already
            if reason:
                log.info("blocked %s: %s", request.url, reason)
                await route.abort(BLOCK_ERROR)
            else:
                await route.fallback()

    async def on_websocket(self, ws: WebSocketRoute) -> None:
        reason = await self.reason(ws.url.replace("ws", "http", 1), navigation=False)
        with contextlib.suppress(PlaywrightError):
            if reason:
                await ws.close(code=1008, reason="blocked by URL policy")
            else:
                ws.connect_to_server()

    async def install(self, context: BrowserContext) -> None:
        if self.needed:
            await context.route("**/*", self.on_request)
            await context.route_web_socket("**/*", self.on_websocket)


class BrowserPool:
    """Warm browser + per-task contexts, all on the event loop that called start()."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._playwright: Playwright | None = None
        self._browser: Browser | None = None
        self._browser_pid: int | None = None
        self._cond = asyncio.Condition()
        self._launching = False
        self._active = 0
        self._served = 0
        self._launches = 0
        self._dead: set[int] = set()

    async def start(self) -> None:
        """Start Playwright and launch the first browser (so the first task starts warm)."""
        if self._playwright is None:
            self._playwright = await async_playwright().start()
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
        )

    def rss_mb(self) -> float:
        """Resident memory of the browser's whole process tree (renderers, GPU, utilities)."""
        if self._browser_pid is None:
            return 0.0
        try:
            root = psutil.Process(self._browser_pid)
            procs = [root, *root.children(recursive=True)]
        except psutil.Error:
            return 0.0
        total = 0
        for proc in procs:
            with contextlib.suppress(psutil.Error):
                total += proc.memory_info().rss
        return total / (1024 * 1024)

    @contextlib.asynccontextmanager
    async def context(self, *, allowed_domains: Sequence[str] = ()) -> AsyncIterator[Page]:
        """A page in a brand-new context: no cookies, storage or cache shared with other tasks."""
        context = await self._open_context()
        try:
            guard = RequestGuard(
                allow_private=self.settings.allow_private_networks,
                allowed_domains=allowed_domains,
            )
            await guard.install(context)
            yield await context.new_page()
        finally:
            with contextlib.suppress(PlaywrightError):
                await context.close()
            await self._release()

    async def _open_context(self) -> BrowserContext:
        """Acquire a slot and open a context; one retry on a browser that died unnoticed."""
        for attempt in (1, 2):
            browser = await self._acquire()
            try:
                return await browser.new_context(
                    viewport={
                        "width": self.settings.viewport_width,
                        "height": self.settings.viewport_height,
                    },
                    service_workers="block",  # service workers would bypass request routing
                    accept_downloads=False,
                )
            except PlaywrightError:
                self._dead.add(id(browser))
                await self._release()
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _alive(self) -> bool:
        """Connected, and its process has not died before Playwright noticed."""
        if self._browser is None or not self._browser.is_connected():
            return False
        if id(self._browser) in self._dead:
            return False
        if self._browser_pid is None:
            return True
        try:
            return psutil.Process(self._browser_pid).status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False

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
            self._browser_pid = await _browser_pid(browser)
            self._browser = browser
            self._served = 0
            self._launches += 1
            log.info("chromium launched in %.2fs", time.perf_counter() - started)
        finally:
            self._launching = False
            self._report()

    async def _close_browser(self) -> None:
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


def is_browser_fault(exc: BaseException) -> bool:
    """True for Playwright errors (crashed browser, closed page) escaping a task."""
    return isinstance(exc, PlaywrightError)


async def _browser_pid(browser: Browser) -> int | None:
    """PID of the browser process, asked over CDP (Playwright does not expose it)."""
    try:
        cdp = await browser.new_browser_cdp_session()
        info = await cdp.send("SystemInfo.getProcessInfo")
        await cdp.detach()
    except PlaywrightError:
        return None
    for proc in info.get("processInfo", []):
        if proc.get("type") == "browser":
            return int(proc["id"])
    return None
