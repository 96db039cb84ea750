"""The browser tools the Worker calls (seed 003 §5.2-5.3), one function each, on a PageSession.

Each returns a ToolResult; ref errors raise RefError, which PageSession.execute turns into
a safe failure with a fresh snapshot (seed 003 §5.1.1).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from app.urlpolicy import ALLOWED_SCHEMES
from workers.agent.protocols import Action, ToolResult
from workers.browser import actions, look
from workers.browser.refs import RefError, parse_ref

if TYPE_CHECKING:
    from workers.browser.session import PageSession

NAV_TIMEOUT_MS = 30000


async def click(s: PageSession, args: dict[str, Any]) -> ToolResult:
    el, target = await s._element(args)
    return await s._verified(
        f"click {args['ref']}", target.frame, lambda: actions.click(el, args), ghost=True
    )


async def type_into(s: PageSession, args: dict[str, Any]) -> ToolResult:
    el, target = await s._element(args)
    return await s._verified(
        f"type into {args['ref']}",
        target.frame,
        lambda: actions.type_text(s.page, el, args),
        ghost=False,
    )


async def select(s: PageSession, args: dict[str, Any]) -> ToolResult:
    el, target = await s._element(args)
    if target.role not in ("combobox", "listbox"):
        return actions.failure(
            "not_a_select",
            f"{args['ref']} is a {target.role}, not a <select>.",
            "click it to open the list, then click the option",
        )
    return await s._verified(
        f"select in {args['ref']}", target.frame, lambda: actions.select_option(el, args), False
    )


async def hover(s: PageSession, args: dict[str, Any]) -> ToolResult:
    el, target = await s._element(args)
    return await s._verified(
        f"hover {args['ref']}",
        target.frame,
        lambda: el.hover(timeout=actions.ACTION_TIMEOUT_MS),
        ghost=False,
        mutating=False,
    )


async def focus(s: PageSession, args: dict[str, Any]) -> ToolResult:
    el, target = await s._element(args)
    return await s._verified(
        f"focus {args['ref']}", target.frame, el.focus, ghost=False, mutating=False
    )


async def press(s: PageSession, args: dict[str, Any]) -> ToolResult:
    key = str(args.get("key", "Enter"))
    return await s._verified(f"press {key}", None, lambda: s.page.keyboard.press(key), ghost=False)


async def scroll(s: PageSession, args: dict[str, Any]) -> ToolResult:
    el, frame = None, None
    if args.get("ref"):
        el, target = await s._element(args)
        frame = target.frame
    return await s._verified(
        f"scroll {args.get('direction', 'down')}",
        frame,
        lambda: actions.scroll(s.page, el, args),
        ghost=False,
        mutating=False,
    )


async def navigate(s: PageSession, args: dict[str, Any]) -> ToolResult:
    """The model's navigate: web pages only (no file://, chrome://, view-source:)."""
    url = str(args.get("url", "")).strip()
    scheme = urlsplit(url).scheme.lower()
    if scheme not in ALLOWED_SCHEMES and url != "about:blank":
        return actions.failure(
            "navigation_blocked", f"Only http(s) URLs can be opened, not {scheme or url!r}."
        )
    return await s.goto(url)


async def back(s: PageSession, args: dict[str, Any]) -> ToolResult:
    before = s.page.url
    response = await s.page.go_back(wait_until="domcontentloaded", timeout=NAV_TIMEOUT_MS)
    if response is None and s.page.url == before:
        return actions.failure("no_history", "There is no previous page in this tab.")
    if s.page.url == "about:blank" and before != "about:blank":
        # the blank page a tab starts on is not a page the task visited: stay put
        await s.page.go_forward(wait_until="domcontentloaded", timeout=NAV_TIMEOUT_MS)
        return actions.failure("no_history", "There is no previous page in this tab.")
    s._refs = None
    s.invalidate()
    s._after_mutation()
    return ToolResult(success=True, reason=f"Back at {s.page.url}", page_changed=True)


async def wait(s: PageSession, args: dict[str, Any]) -> ToolResult:
    seconds = min(float(args.get("seconds", args.get("time", 1.0))), 10.0)
    await asyncio.sleep(seconds)
    return ToolResult(success=True, reason=f"waited {seconds:g}s")


async def expand(s: PageSession, args: dict[str, Any]) -> ToolResult:
    """snapshot(start, end): trimmed lines of the current snapshot (seed 003 §6.1)."""
    if s.last is not None and s._navigated:  # its ranges describe another page
        return ToolResult(
            success=False,
            error="stale_ref",
            reason=f"the page navigated since snapshot {s.last.version}; its ranges "
            "no longer apply: read the new page in the next observation",
        )
    if s.last is None:
        s.last = await s.snapshot()
    start, end = _range(args, s.last.version)
    text = s.last.expand(start, end, max_tokens=s.max_tokens)
    return ToolResult(
        success=True,
        reason=f"refs {start}-{end} of snapshot {s.last.version}",
        data={"text": text, "version": s.last.version},
    )


async def bulk(s: PageSession, args: dict[str, Any]) -> ToolResult:
    """Several independent actions in one call; stops at the first failure (seed 003 §5.3)."""
    done: list[str] = []
    changed = False
    for step in args.get("actions", []):
        step = dict(step)
        name = str(step.pop("type", step.pop("name", "")))
        result = await s.execute(Action(name, step))
        changed = changed or result.page_changed
        if not result.success:
            return ToolResult(
                success=False,
                error=result.error,
                reason=f"step {len(done) + 1} ({name}) failed: {result.reason}",
                tried=tuple(done),
                alternatives=result.alternatives,
                page_changed=changed,
                data=result.data,
            )
        done.append(f"{name} {step.get('ref', '')}".strip())
    return ToolResult(
        success=True,
        reason=f"{len(done)} actions done",
        tried=tuple(done),
        page_changed=changed,
    )


def _range(args: dict[str, Any], version: int) -> tuple[int, int]:
    """Accepts start/end (refs or indices) or range="120-480"."""
    raw = args.get("range")
    if isinstance(raw, str) and "-" in raw:
        a, b = raw.split("-", 1)
        return _index(a, version), _index(b, version)
    start = _index(args.get("start", args.get("startRef", 1)), version)
    return start, _index(args.get("end", args.get("endRef", start + 200)), version)


def _index(value: object, version: int) -> int:
    text = str(value).strip()
    if ":" in text:
        v, n = parse_ref(text)
        if v != version:
            raise RefError("stale_ref", f"Range ref {text} is not from snapshot {version}.")
        return n
    return int(text)


Handler = Callable[["PageSession", dict[str, Any]], Awaitable[ToolResult]]
HANDLERS: dict[str, Handler] = {
    "click": click,
    "type": type_into,
    "select_option": select,
    "hover": hover,
    "focus": focus,
    "press_key": press,
    "scroll": scroll,
    "navigate": navigate,
    "go_back": back,
    "wait": wait,
    "snapshot": expand,
    "bulk": bulk,
    "look": look.look,
}
