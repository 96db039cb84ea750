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
from workers.agent import textcut
from workers.agent.protocols import ToolResult
from workers.agent.toolerrors import ToolError as E
from workers.browser.act import actions

if TYPE_CHECKING:
    from workers.agent.tools import args as a
    from workers.browser.act.context import NavContext

NAV_TIMEOUT_MS = 30000
WAIT_POLL_S = 0.1


async def navigate(s: NavContext, args: a.NavigateArgs) -> ToolResult:
    """The model's navigate: web pages only (no file://, chrome://, view-source:)."""
    url = args.url.strip()
    scheme = urlsplit(url).scheme.lower()
    if scheme not in ALLOWED_SCHEMES and url != "about:blank":
        return actions.failure(
            E.navigation_blocked, f"Only http(s) URLs can be opened, not {scheme or url!r}."
        )
    return await s.goto(url)


async def back(s: NavContext, args: a.NoArgs) -> ToolResult:
    before = s.page.url
    response = await s.page.go_back(wait_until="domcontentloaded", timeout=NAV_TIMEOUT_MS)
    if response is None and s.page.url == before:
        return actions.failure(E.no_history, "There is no previous page in this tab.")
    if s.page.url == "about:blank" and before != "about:blank":
        # the blank page a tab starts on is not a page the task visited: stay put
        await s.page.go_forward(wait_until="domcontentloaded", timeout=NAV_TIMEOUT_MS)
        return actions.failure(E.no_history, "There is no previous page in this tab.")
    return _moved(s, "Back")


async def forward(s: NavContext, args: a.NoArgs) -> ToolResult:
    before = s.page.url
    response = await s.page.go_forward(wait_until="domcontentloaded", timeout=NAV_TIMEOUT_MS)
    if response is None and s.page.url == before:
        return actions.failure(E.no_history, "There is no next page in this tab.", "go_back")
    return _moved(s, "Forward")


async def reload(s: NavContext, args: a.NoArgs) -> ToolResult:
    """The page as the server sends it again (a page that asks to be reloaded)."""
    try:
        await s.page.reload(wait_until="domcontentloaded", timeout=NAV_TIMEOUT_MS)
    except Error as exc:
        return actions.failure(E.navigation_failed, f"Could not reload: {exc.message[:200]}")
    return _moved(s, "Reloaded")


def _moved(s: NavContext, what: str) -> ToolResult:
    s.forget_refs()
    s.invalidate()
    s.after_mutation()
    return ToolResult(success=True, reason=f"{what} at {s.page.url}", page_changed=True)


async def scroll(s: NavContext, args: a.ScrollArgs) -> ToolResult:
    el = None
    if args.ref:
        el, _ = await s.element(args.model_dump())
    if args.to_text:
        return await _scroll_to_text(s, args.to_text)
    moved = await actions.scroll(
        s.page, el, args.direction, pixels=args.pixels, percent=args.to_percent, to=args.to
    )
    return _scrolled(s, moved, args.direction, args.ref)


async def scroll_within(s: NavContext, args: a.ScrollWithinArgs) -> ToolResult:
    el, _ = await s.element(args.model_dump())
    moved = await actions.scroll(s.page, el, args.direction, pixels=args.pixels)
    return _scrolled(s, moved, args.direction, args.ref)


def _scrolled(s: NavContext, moved: dict[str, Any], direction: str, ref: str | None) -> ToolResult:
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


async def _scroll_to_text(s: NavContext, text: str) -> ToolResult:
    target = s.page.get_by_text(text).filter(visible=True).first  # not an invisible copy
    try:
        await target.scroll_into_view_if_needed(timeout=actions.ACTION_TIMEOUT_MS)
    except (PlaywrightTimeout, Error):
        return actions.failure(
            E.text_not_found, f"no visible text {text!r} on the page.", "dom_search for it"
        )
    s.invalidate()
    return ToolResult(success=True, reason=f"scrolled to {text!r}")


async def wait(s: NavContext, args: a.WaitArgs) -> ToolResult:
    await asyncio.sleep(args.seconds)
    s.invalidate()
    return ToolResult(success=True, reason=f"waited {args.seconds:g}s")


async def wait_for(s: NavContext, args: a.WaitForArgs) -> ToolResult:
    """Poll every frame for a visible element with the text (substring, case-insensitive):
    a hidden element that also holds it (an instruction kept invisible in the layout) must
    neither end the wait early nor hide the visible one; text_gone waits until none shows."""
    started = time.perf_counter()
    if args.time is not None:
        await asyncio.sleep(args.time)
    deadline = time.monotonic() + args.timeout_s
    for text, wanted in ((args.text, True), (args.text_gone, False)):
        if not text:
            continue
        while await _shown(s, text) != wanted:
            if time.monotonic() > deadline:
                which = f"{text!r} to appear" if wanted else f"{text!r} to go"
                return actions.failure(
                    E.condition_not_met,
                    f"waited {args.timeout_s:g}s for {which}; it did not (visible text in"
                    " any frame was checked).",
                    "observe the page: it may show it in other words",
                )
            await asyncio.sleep(WAIT_POLL_S)
    s.invalidate()
    took = time.perf_counter() - started
    return ToolResult(success=True, reason=f"condition met after {took:.1f}s")


async def _shown(s: NavContext, text: str) -> bool:
    """Some frame shows an element containing the text (hidden matches do not count)."""
    for frame in s.page.frames:
        try:
            if await frame.get_by_text(text).filter(visible=True).count():
                return True
        except Error:  # a frame detached meanwhile
            continue
    return False


async def wait_for_condition(s: NavContext, args: a.WaitForConditionArgs) -> ToolResult:
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
        return actions.failure(
            E.condition_not_met, f"condition not met within {args.timeout_s:g}s."
        )
    except Error as exc:
        return actions.failure(
            E.action_failed, f"wait_for_condition: {textcut.cut(exc.message, 200)}"
        )
    s.invalidate()
    return ToolResult(success=True, reason="condition met")
