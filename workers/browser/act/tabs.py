"""Browser tabs (seed 003 §5.2.2 browser_tabs(action, url?, tabId?)): list, open, switch,
close. Tab ids are positions in the context's page list; the session acts on one tab."""

from __future__ import annotations

import asyncio
import contextlib
from typing import TYPE_CHECKING

from playwright.async_api import ElementHandle, Error, Page

from workers.agent import textcut
from workers.agent.protocols import ToolResult
from workers.agent.toolerrors import ToolError as E
from workers.browser.act import actions
from workers.browser.runtime.scripts import js

if TYPE_CHECKING:
    from workers.agent.tools.args import TabsArgs
    from workers.browser.act.context import TabContext

NAV_TIMEOUT_MS = 30000


def _open_pages(s: TabContext) -> list[Page]:
    return [p for p in s.page.context.pages if not p.is_closed()]


async def _listing(s: TabContext) -> tuple[str, list[dict[str, object]]]:
    rows: list[dict[str, object]] = []
    for i, p in enumerate(_open_pages(s)):
        title = ""
        with contextlib.suppress(Error):
            title = await p.title()
        rows.append(
            {"tab_id": i, "url": p.url, "title": textcut.cut(title, 80), "current": p is s.page}
        )
    text = "; ".join(
        f"{r['tab_id']}{'*' if r['current'] else ''} {r['title']!r} {r['url']}" for r in rows
    )
    return text, rows


async def tabs(s: TabContext, args: TabsArgs) -> ToolResult:
    pages = _open_pages(s)
    if args.action == "list":
        text, rows = await _listing(s)
        return ToolResult(success=True, reason=f"tabs (* = current): {text}", data={"tabs": rows})
    if args.action == "open":
        page = await s.page.context.new_page()
        s.switch_to(page)
        if args.url:
            result = await s.goto(args.url)
            if not result.success:
                return result
        return await _done(s, f"opened tab {len(pages)}")
    index = pages.index(s.page) if args.tab_id is None and s.page in pages else args.tab_id
    if index is None or not 0 <= index < len(pages):
        text, _ = await _listing(s)
        return actions.failure(E.tab_not_found, f"no tab {args.tab_id}; tabs: {text}")
    target = pages[index]
    if args.action == "switch":
        s.switch_to(target)
        await target.bring_to_front()
        return await _done(s, f"switched to tab {index}")
    if len(pages) == 1:
        return actions.failure(E.tab_not_found, "this is the only tab; it cannot be closed.")
    await target.close()
    if target is s.page:
        s.switch_to(_open_pages(s)[-1])
    return await _done(s, f"closed tab {index}")


async def _done(s: TabContext, what: str) -> ToolResult:
    text, rows = await _listing(s)
    return ToolResult(
        success=True,
        reason=f"{what}; now at {s.page.url}; tabs: {text}",
        page_changed=True,
        data={"tabs": rows},
    )


LATE_TAB_S = 1.0  # a control that answered with nothing visible: its tab may come this late
LATE_LINK_S = 3.0  # a link to another tab: the tab shows once its page answers
POLL_S = 0.05


async def late_tab(opened: list[Page], wait_s: float = LATE_TAB_S) -> bool:
    """Issue 31 item 4: a click whose handler ran while the page stayed the same may be
    opening a tab a moment later (`setTimeout(() => window.open(...))`, a slow redirect);
    wait for it up to `wait_s`. True when a tab the page opened is there."""
    deadline = asyncio.get_running_loop().time() + wait_s
    while not any(not p.is_closed() for p in opened):
        if asyncio.get_running_loop().time() >= deadline:
            return False
        await asyncio.sleep(POLL_S)
    return True


async def opens_tab(el: ElementHandle | None) -> bool:
    """The element is (inside) a link or form that opens its page in another tab: the tab
    shows up once its page answers, which a slow page does after the effect check (the
    relay's terms link was pressed twice, by two click tiers, and opened two tabs)."""
    if el is None:
        return False
    try:
        return bool(await el.evaluate(js("opens_tab.js")))
    except Error:
        return False


def tab_note(url: str) -> str:
    """What the model is told when a tab opened after its action was judged (observe)."""
    return f"[a new tab opened after your last action: {url}; you are now in it (tabs switches)]"
