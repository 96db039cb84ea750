"""A task context's storage state (cookies, localStorage): captured after a run, restored
before the next one of the same browser profile (app/api/profiles.py).

Contexts are prepared before their task is known (the pool's spare), so a saved state is
applied to an open context: cookies with `add_cookies`; each origin's localStorage on a
blank document of that origin that is answered locally (`page.route` fulfils it, takes
precedence over the context's guard route, and sends nothing over the network), then the
page goes back to about:blank. The state format is Playwright's `storage_state()`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import Error, Page, Route

from workers.browser.runtime.scripts import js

log = logging.getLogger(__name__)

BLANK = "<!doctype html><title></title>"
MAX_ORIGINS = 50


async def capture(page: Page) -> dict[str, Any] | None:
    """Cookies and localStorage of every origin the context holds; None if it is gone."""
    try:
        return dict(await page.context.storage_state())
    except Error as exc:
        log.warning("storage state not captured: %s", exc.message)
        return None


def _origin_url(origin: str) -> str | None:
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}/"


async def _fulfil_blank(route: Route) -> None:
    await route.fulfill(status=200, content_type="text/html", body=BLANK)


async def restore(page: Page, state: Mapping[str, Any]) -> int:
    """Apply a saved state to the page's (fresh) context → number of origins restored."""
    cookies = list(state.get("cookies") or [])
    if cookies:
        await page.context.add_cookies(cookies)
    restored = 0
    for origin in list(state.get("origins") or [])[:MAX_ORIGINS]:
        url = _origin_url(str(origin.get("origin", "")))
        items = [
            {"name": str(i["name"]), "value": str(i["value"])}
            for i in origin.get("localStorage") or []
            if "name" in i and "value" in i
        ]
        if url is None or not items:
            continue
        await page.route(url, _fulfil_blank)
        try:
            await page.goto(url, wait_until="domcontentloaded")
            await page.evaluate(js("set_local_storage.js"), items)
            restored += 1
        except Error as exc:
            log.warning("localStorage of %s not restored: %s", url, exc.message)
        finally:
            await page.unroute(url, _fulfil_blank)
    if restored:
        await page.goto("about:blank")
    return restored
