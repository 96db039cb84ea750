"""A PageSession (humanize off) on a page served by routes: path suffix -> (body, type)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager

from playwright.async_api import Page, Route

from app.settings import Settings
from workers.browser.session import PageSession


@asynccontextmanager
async def served(
    page: Page, settings: Settings, origin: str, routes: Mapping[str, tuple[str, str]]
) -> AsyncIterator[PageSession]:
    """`routes["/"]` is the page; other suffixes (e.g. "/api") answer requests to them."""

    async def handle(route: Route) -> None:
        url = route.request.url
        suffix = next((k for k in routes if k != "/" and url.endswith(k)), "/")
        body, kind = routes[suffix]
        await route.fulfill(body=body, content_type=kind)

    await page.route(f"{origin}/**", handle)
    s = await PageSession.open(page, settings.model_copy(update={"humanize": False}))
    assert (await s.goto(f"{origin}/")).success
    try:
        yield s
    finally:
        await s.close()
