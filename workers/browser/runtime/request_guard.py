"""The URL policy on every request a task's page makes, at the context's router.

Every request type (navigations, subresources, fetch/XHR, WebSockets) passes the network policy
and the task's allowed_domains; redirect hops, which the router does not see, pass the
context's egress proxy (workers/browser/runtime/egress.py).
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Sequence
from urllib.parse import urlsplit

from playwright.async_api import BrowserContext, Request, Route, WebSocketRoute
from playwright.async_api import Error as PlaywrightError

from app.urlpolicy import NetworkPolicy, Resolver, check_url_async, system_resolve

log = logging.getLogger(__name__)

# Schemes that never reach the network; everything else must pass the URL policy.
LOCAL_SCHEMES = frozenset({"data", "blob", "about", "chrome-error"})
BLOCK_ERROR = "blockedbyclient"


class RequestGuard:
    """Per-context URL policy for every request type: the network policy and the task's
    allowed_domains (navigations, subresources, fetch/XHR, WebSockets alike)."""

    def __init__(
        self,
        *,
        policy: NetworkPolicy,
        allowed_domains: Sequence[str],
        resolve: Resolver = system_resolve,
    ) -> None:
        self.policy = policy
        self.allowed_domains = tuple(allowed_domains)
        self.resolve = resolve
        self.blocked: list[tuple[str, str]] = []
        self._cache: dict[str, str | None] = {}

    async def reason(self, url: str) -> str | None:
        """Why `url` may not be fetched, or None; resolved once per origin per task."""
        parts = urlsplit(url)
        if parts.scheme.lower() in LOCAL_SCHEMES:
            return None
        key = f"{parts.scheme}://{parts.netloc}".lower()
        if key not in self._cache:
            self._cache[key] = await check_url_async(
                url,
                policy=self.policy,
                allowed_domains=self.allowed_domains,
                resolve=self.resolve,
            )
        reason = self._cache[key]
        if reason:
            self.blocked.append((url, reason))
        return reason

    async def on_request(self, route: Route, request: Request) -> None:
        reason = await self.reason(request.url)
        with contextlib.suppress(PlaywrightError):  # the page may be gone already
            if reason:
                log.info("blocked %s: %s", request.url, reason)
                await route.abort(BLOCK_ERROR)
            else:
                await route.fallback()

    async def on_websocket(self, ws: WebSocketRoute) -> None:
        reason = await self.reason(ws.url.replace("ws", "http", 1))
        with contextlib.suppress(PlaywrightError):
            if reason:
                await ws.close(code=1008, reason="blocked by URL policy")
            else:
                ws.connect_to_server()


class GuardSlot:
    """Routing installed while a context is prepared (installing routes costs ~60 ms); the
    task's own RequestGuard is bound on acquisition. Unbound, every request is refused."""

    def __init__(self) -> None:
        self.guard: RequestGuard | None = None

    async def on_request(self, route: Route, request: Request) -> None:
        if self.guard is not None:
            await self.guard.on_request(route, request)
            return
        with contextlib.suppress(PlaywrightError):
            await route.abort(BLOCK_ERROR)

    async def on_websocket(self, ws: WebSocketRoute) -> None:
        if self.guard is not None:
            await self.guard.on_websocket(ws)
            return
        with contextlib.suppress(PlaywrightError):
            await ws.close(code=1008, reason="blocked by URL policy")

    async def install(self, context: BrowserContext) -> None:
        await context.route("**/*", self.on_request)
        await context.route_web_socket("**/*", self.on_websocket)
