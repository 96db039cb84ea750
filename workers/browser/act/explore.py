"""The browser side of site exploration (seed 001 App. A.2): load, look, click, restore.

`PageExplorer` implements the traversal's `ExplorationBrowser` (workers/agent/memory/exploration.py
owns the depth-first walk and its bookkeeping) over one Playwright page from the pool:

- a look is the perception's own snapshot and PageMem (observe/snapshot.py, pagemem.py):
  controls are its interactive nodes (role and accessible name as the agent sees them, so
  labels learned here match later observations), each with its link target and form role
  read by js/target_info.js; the page's outline is the PageMem sections (deterministic
  titles, a short extract of their own text: no model), its structural signature the
  sections' kinds, landmark roles and node-role runs (list sections: one item);
- a click restores the pre-click page first (state restored by reloading the pre-click URL
  whenever an earlier click may have changed it), clicks the path's controls in turn (a
  menu's control, then its item), waits for the page to settle (act/settle.py), and reports
  a navigation (new URL, or a new tab: recorded and closed), or the controls that appeared.

Every request still passes the pool's router guard and egress proxy (URL policy and the
context's allowed_domains); `url_reason` applies the same policy before a page is opened.
JavaScript dialogs are dismissed.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import re
from collections.abc import Callable, Sequence

from playwright.async_api import Dialog, ElementHandle, Page
from playwright.async_api import Error as PlaywrightError

from app.contracts import SectionOutline, WebsiteMem
from app.urlpolicy import NetworkPolicy, check_url_async, domain_of
from workers.agent.memory.exploration import (
    ClickOutcome,
    Control,
    ExploreLimits,
    Explorer,
    PageView,
    SiteScope,
    normalize,
)
from workers.browser.act.settle import NetworkWatch, SettleConfig, until_settled
from workers.browser.observe.nodes import Node
from workers.browser.observe.pagemem import PageMem, Section, divide
from workers.browser.observe.refs import RefError, resolve
from workers.browser.observe.snapshot import capture
from workers.browser.runtime.scripts import js

log = logging.getLogger(__name__)

GOTO_TIMEOUT_MS = 15_000
CLICK_TIMEOUT_MS = 3_000
SETTLE = SettleConfig(cap_s=2.0)
HARD_STOP_SLACK_S = 20.0
EXTRACT_CHARS = 160  # a section's summary: the start of its own text
PAGE_SUMMARY_CHARS = 200
_LABEL = re.compile(r'\s*"[^"]*"')


def _clip(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _text_of(nodes: Sequence[Node]) -> str:
    return " ".join(n.name for n in nodes if not n.interactive and n.role != "heading" and n.name)


def outline(mem: PageMem) -> tuple[SectionOutline, ...]:
    """The sections with their deterministic titles and the start of their own text."""
    return tuple(
        SectionOutline(title=s.title, kind=s.kind, summary=_clip(_text_of(s.nodes), EXTRACT_CHARS))
        for s in mem.sections
    )


def page_summary(mem: PageMem) -> str:
    """The page's first heading and the text after it (no model, seed 001 §2.3 'summarize')."""
    nodes = [n for s in mem.sections if s.kind != "navigation" for n in s.nodes]
    heading = next((n.name for n in nodes if n.role == "heading" and n.name), "")
    text = _text_of(nodes)
    return _clip(f"{heading}: {text}" if heading and text else heading or text, PAGE_SUMMARY_CHARS)


def _runs(nodes: Sequence[Node]) -> str:
    roles: list[str] = []
    for n in nodes:
        role = n.role if n.interactive or n.role == "heading" else "text"
        if not roles or roles[-1] != role:
            roles.append(role)
    return ",".join(roles)


def _shape(section: Section) -> str:
    nodes = section.items[0].nodes if section.is_list and section.items else section.nodes
    landmark = _LABEL.sub("", nodes[0].landmark) if nodes else ""
    return f"{section.kind}|{landmark}|{_runs(nodes)}"


def signature(mem: PageMem) -> str:
    """Structural identity of a page (seed 001 A.2 MatchesTemplate: same number of sections,
    each structurally equal): kinds, landmark roles without labels, node-role runs."""
    shape = "\n".join(_shape(s) for s in mem.sections)
    return hashlib.sha1(shape.encode()).hexdigest()[:16]


class PageExplorer:
    """ExplorationBrowser over one page of a fresh pool context."""

    def __init__(
        self, page: Page, scope: SiteScope, policy: NetworkPolicy, allowed: Sequence[str] = ()
    ) -> None:
        self.page, self.scope, self.policy, self.allowed = page, scope, policy, tuple(allowed)
        self.version = 0
        self.dirty = True  # the page may differ from its loaded state: reload before a click
        self.watch = NetworkWatch(page).start()
        self.opened: list[Page] = []
        page.on("dialog", self._on_dialog)
        page.context.on("page", self._on_page)

    def _on_page(self, tab: Page) -> None:
        self.opened.append(tab)

    @staticmethod
    async def _on_dialog(dialog: Dialog) -> None:
        with contextlib.suppress(PlaywrightError):
            await dialog.dismiss()

    async def url_reason(self, url: str) -> str | None:
        return await check_url_async(url, policy=self.policy, allowed_domains=self.allowed)

    async def load(self, url: str) -> PageView | None:
        if not await self._goto(url) or not self.scope.on_site(self.page.url):
            return None
        view, _ = await self._look()
        return view

    async def click(self, url: str, path: Sequence[Control]) -> ClickOutcome:
        if (self.dirty or normalize(self.page.url) != normalize(url)) and not await self._goto(url):
            return ClickOutcome("", False, error="the page did not load again")
        _, handles = await self._look()
        for i, control in enumerate(path):
            handle = handles.get(control.key)
            if handle is None:
                return ClickOutcome(self.page.url, False, error="element not found after reload")
            before, keys = normalize(self.page.url), set(handles)
            outcome = await self._click(handle, before)
            if outcome is not None:
                return outcome
            view, handles = await self._look()
            if i == len(path) - 1:
                revealed = tuple(c for c in view.controls if c.key not in keys)
                return ClickOutcome(self.page.url, False, revealed)
        return ClickOutcome(self.page.url, False)

    async def _click(self, handle: ElementHandle, before: str) -> ClickOutcome | None:
        """Click and settle; an outcome when the click failed or went elsewhere."""
        self.dirty = True
        self.watch.mark()
        self.opened.clear()
        try:
            await handle.click(timeout=CLICK_TIMEOUT_MS)
        except PlaywrightError as exc:
            return ClickOutcome(self.page.url, False, error=_clip(str(exc), 200))
        with contextlib.suppress(PlaywrightError):
            await until_settled(self.page, self.watch, config=SETTLE)
        if self.opened:  # a new tab: its URL is where the element leads
            tab = self.opened[0]
            with contextlib.suppress(PlaywrightError):
                await tab.wait_for_load_state("domcontentloaded", timeout=GOTO_TIMEOUT_MS)
            target = tab.url
            for extra in self.opened:
                with contextlib.suppress(PlaywrightError):
                    await extra.close()
            self.opened.clear()
            return ClickOutcome(target, True)
        after = normalize(self.page.url)
        return ClickOutcome(after, True) if after != before else None

    async def _goto(self, url: str) -> bool:
        try:
            response = await self.page.goto(url, wait_until="load", timeout=GOTO_TIMEOUT_MS)
        except PlaywrightError as exc:
            log.info("exploration: %s did not load: %s", url, exc)
            return False
        self.dirty = False
        return response is None or response.status < 400

    async def _look(self) -> tuple[PageView, dict[str, ElementHandle]]:
        self.version += 1
        snap, table = await capture(self.page, version=self.version, max_tokens=None)
        mem = divide(snap)
        controls: list[Control] = []
        handles: dict[str, ElementHandle] = {}
        for n in snap.nodes:
            if not n.interactive or "disabled" in n.states or n.frame:
                continue
            try:
                handle, _ = await resolve(table, n.ref)
                info = await handle.evaluate(js("target_info.js"))
            except (RefError, PlaywrightError):
                continue
            info = info or {}
            control = Control(
                role=n.role,
                name=n.name,
                href=str(info.get("href") or ""),
                submits=bool(info.get("submits")),
                download=bool(info.get("download")),
                list_id=n.list_id,
                item=n.item,
            )
            if control.key not in handles:
                controls.append(control)
                handles[control.key] = handle
        view = PageView(
            url=snap.url,
            title=snap.title,
            summary=page_summary(mem),
            sections=outline(mem),
            signature=signature(mem),
            has_list=any(s.is_list for s in mem.sections),
            controls=tuple(controls),
        )
        return view, handles

    def close(self) -> None:
        self.watch.stop()
        self.page.remove_listener("dialog", self._on_dialog)
        self.page.context.remove_listener("page", self._on_page)


async def explore_site(
    page: Page,
    url: str,
    limits: ExploreLimits,
    *,
    policy: NetworkPolicy,
    allowed_domains: Sequence[str] = (),
    progress: Callable[[Explorer], None] | None = None,
) -> WebsiteMem:
    """Explore the site of `url` from `page` (a fresh pool context) within `limits`; the
    walk checks its deadline between clicks, a hung page is cut `HARD_STOP_SLACK_S` later,
    and either way the partial WebsiteMem is returned (seed 001 App. B)."""
    scope = SiteScope(domain_of(url), tuple(allowed_domains))
    browser = PageExplorer(page, scope, policy, allowed_domains)
    explorer = Explorer(browser, scope, limits, progress=progress)
    try:
        async with asyncio.timeout(limits.timeout_s + HARD_STOP_SLACK_S):
            return await explorer.run(url)
    except TimeoutError:
        explorer.stopped = explorer.stopped or "timeout"
        return explorer.result(url)
    finally:
        browser.close()
