"""A never-used browser context for the next task: page, router slot and egress proxy.

Opening one costs ~300 ms, so the pool prepares it ahead of the task. Both the router slot and
the proxy refuse everything until the task that takes the context binds its allowed domains.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass

from playwright.async_api import Browser, BrowserContext, Page
from playwright.async_api import Error as PlaywrightError

from app.urlpolicy import NetworkPolicy, Resolver
from workers.browser.runtime.egress import UNBOUND, Connector, EgressProxy
from workers.browser.runtime.request_guard import GuardSlot


@dataclass(frozen=True)
class ContextOptions:
    """What every task context of one pool shares."""

    viewport_width: int
    viewport_height: int
    policy: NetworkPolicy
    resolve: Resolver
    connect: Connector


@dataclass(frozen=True)
class Prepared:
    """A never-used context with its page, its router slot and its own egress proxy (both
    refuse everything until a task binds them)."""

    browser: Browser
    context: BrowserContext
    page: Page
    slot: GuardSlot
    egress: EgressProxy

    async def close(self) -> None:
        with contextlib.suppress(PlaywrightError):
            await self.context.close()
        await self.egress.close()


async def prepare(browser: Browser, options: ContextOptions) -> Prepared:
    """Open a context behind its own egress proxy, with the unbound router slot and a page."""
    # route() misses redirect hops: every connection also passes this context's proxy
    egress = EgressProxy(
        policy=options.policy,
        resolve=options.resolve,
        connect=options.connect,
        allowed_domains=UNBOUND,
    )
    await egress.start()
    try:
        context = await browser.new_context(
            viewport={"width": options.viewport_width, "height": options.viewport_height},
            service_workers="block",  # service workers would bypass request routing
            accept_downloads=True,  # kept as task artifacts (files.keep_download)
            proxy={"server": egress.server},
        )
    except BaseException:
        await egress.close()
        raise
    slot = GuardSlot()
    try:
        await slot.install(context)
        page = await context.new_page()
    except BaseException:
        with contextlib.suppress(PlaywrightError):
            await context.close()
        await egress.close()
        raise
    return Prepared(browser=browser, context=context, page=page, slot=slot, egress=egress)
