"""Navigation, scrolling and waiting tools (seed 000 App. A "Navigation", "Scroll",
"Control"; seed 003 §5.2.2 wait_for(time?, textToWait?, textGone?))."""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from playwright.async_api import Error
from playwright.async_api import TimeoutError as PlaywrightTimeout

from app.urlpolicy import ALLOWED_SCHEMES
from workers.agent.protocols import ToolResult
from workers.agent.toolerrors import ToolError as E
from workers.browser import actions

if TYPE_CHECKING:
    from workers.agent.tools import args as a
    from workers.browser.session import PageSession

NAV_TIMEOUT_MS = 30000


async def navigate(s: PageSession, args: a.NavigateArgs) -> ToolResult:
    """The model's navigate: web pages only (no file://, chrome://, view-source:)."""
    url = args.url.strip()
    scheme = urlsplit(url).scheme.lower()
    if scheme not in ALLOWED_SCHEMES and url != "about:blank":
        return actions.failure(
            E.navigation_blocked, f"Only http(s) URLs can be opened, not {scheme or url!r}."
        )
    return await s.goto(url)


async def back(s: PageSession, args: a.NoArgs) -> ToolResult:
    before = s.page.url
    response = await s.page.go_back(wait_until="domcontentloaded", timeout=NAV_TIMEOUT_MS)
    if response is None and s.page.url == before:
        return actions.failure(E.no_history, "There is no previous page in this tab.")
    if s.page.url == "about:blank" and before != "about:blank":
        # the blank page a tab starts on is not a page the task visited: stay put
        await s.page.go_forward(wait_until="domcontentloaded", timeout=NAV_TIMEOUT_MS)
        return actions.failure(E.no_history, "There is no previous page in this tab.")
    return _moved(s, "Back")


async def forward(s: PageSession, args: a.NoArgs) -> ToolResult:
    before = s.page.url
    response = await s.page.go_forward(wait_until="domcontentloaded", timeout=NAV_TIMEOUT_MS)
    if response is None and s.page.url == before:
        return actions.failure(E.no_history, "There is no next page in this tab.", "go_back")
    return _moved(s, "Forward")


def _moved(s: PageSession, what: str) -> ToolResult:
    s._refs = None
    s.invalidate()
    s._after_mutation()
    return ToolResult(success=True, reason=f"{what} at {s.page.url}", page_changed=True)


async def scroll(s: PageSession, args: a.ScrollArgs) -> ToolResult:
    el = None
    if args.ref:
        el, _ = await s._element(args.model_dump())
    if args.to_text:
        return await _scroll_to_text(s, args.to_text)
    moved = await actions.scroll(
        s.page, el, args.direction, pixels=args.pixels, percent=args.to_percent, to=args.to
    )
    return _scrolled(s, moved, args.direction, args.ref)


async def scroll_within(s: PageSession, args: a.ScrollWithinArgs) -> ToolResult:
    el, _ = await s._element(args.model_dump())
    moved = await actions.scroll(s.page, el, args.direction, pixels=args.pixels)
    return _scrolled(s, moved, args.direction, args.ref)


def _scrolled(s: PageSession, moved: dict[str, Any], direction: str, ref: str | None) -> ToolResult:
    before, after = moved["before"], moved["after"]
    what = "page" if moved["page"] else f"<{moved['tag']}> around {ref}"
    if (before["x"], before["y"]) == (after["x"], after["y"]):
        return actions.failure(
            E.no_effect,
            f"the {what} did not move (already at that end, or it does not scroll {direction}).",
            "scroll the other way",
            "scroll_within the ref of the list or strip that scrolls",
        )
    s.invalidate()
    horizontal = direction in ("left", "right") and before["x"] != after["x"]
    pos, size, view = ("x", "width", "view_w") if horizontal else ("y", "height", "view_h")
    reason = (
        f"scrolled the {what} {pos} {before[pos]}->{after[pos]} of {after[size]}"
        f" (view {after[view]})"
    )
    return ToolResult(success=True, reason=reason, data={"scroll": after})


async def _scroll_to_text(s: PageSession, text: str) -> ToolResult:
    target = s.page.get_by_text(text).first
    try:
        await target.scroll_into_view_if_needed(timeout=actions.ACTION_TIMEOUT_MS)
    except (PlaywrightTimeout, Error):
        return actions.failure(
            E.text_not_found, f"no visible text {text!r} on the page.", "dom_search for it"
        )
    s.invalidate()
    return ToolResult(success=True, reason=f"scrolled to {text!r}")


async def wait(s: PageSession, args: a.WaitArgs) -> ToolResult:
    await asyncio.sleep(args.seconds)
    s.invalidate()
    return ToolResult(success=True, reason=f"waited {args.seconds:g}s")


async def wait_for(s: PageSession, args: a.WaitForArgs) -> ToolResult:
    started = time.perf_counter()
    if args.time is not None:
        await asyncio.sleep(args.time)
    ms = args.timeout_s * 1000
    try:
        if args.text:
            await s.page.get_by_text(args.text).first.wait_for(state="visible", timeout=ms)
        if args.text_gone:
            await _text_gone(s, args.text_gone, ms)
    except PlaywrightTimeout:
        which = f"{args.text!r} to appear" if args.text else f"{args.text_gone!r} to go"
        return actions.failure(
            E.timeout, f"waited {args.timeout_s:g}s for {which}; it did not.", "read the page"
        )
    s.invalidate()
    took = time.perf_counter() - started
    return ToolResult(success=True, reason=f"condition met after {took:.1f}s")


async def _text_gone(s: PageSession, text: str, ms: float) -> None:
    locator = s.page.get_by_text(text)
    deadline = time.monotonic() + ms / 1000
    while await locator.count() and await locator.first.is_visible():
        if time.monotonic() > deadline:
            raise PlaywrightTimeout(f"{text!r} still shown")
        await asyncio.sleep(0.1)


async def wait_for_condition(s: PageSession, args: a.WaitForConditionArgs) -> ToolResult:
    ms = args.timeout_s * 1000
    try:
        if args.selector:
            await s.page.locator(args.selector).first.wait_for(state=args.state, timeout=ms)
        if args.url_contains:
            needle = args.url_contains
            await s.page.wait_for_url(lambda u: needle in u, timeout=ms)
        if args.load_state:
            await s.page.wait_for_load_state(args.load_state, timeout=ms)
    except PlaywrightTimeout:
        return actions.failure(E.timeout, f"condition not met within {args.timeout_s:g}s.")
    except Error as exc:
        return actions.failure(E.action_failed, f"wait_for_condition: {exc.message[:200]}")
    s.invalidate()
    return ToolResult(success=True, reason="condition met")
