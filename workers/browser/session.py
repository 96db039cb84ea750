"""PageSession: the Browser protocol over one Playwright page (observe, act, screenshot).

Every observe() takes a new snapshot version; actions name elements by `v:n` refs of the
current version only (seed 003 §5.1.1). A stale ref fails safely and the result carries a
fresh snapshot plus the refs that now match the old element (seed 003 §5.4).
"""

from __future__ import annotations

import asyncio
import hashlib
import importlib
import re
from collections.abc import Awaitable, Callable
from typing import Any

from playwright.async_api import Error, Frame, Page

from app.settings import Settings
from workers.agent.protocols import Action, Observation, ToolResult
from workers.browser import actions, frames
from workers.browser.refs import RefError, RefTable, RefTarget, parse_ref, resolve
from workers.browser.snapshot import Snapshot, capture

SETTLE_S = 0.3  # let click handlers and transitions run before verifying the effect
NAV_TIMEOUT_MS = 30000
_REF_IN_LINE = re.compile(r"\[\d+:\d+\] ")


class PageSession:
    """One task's page; build with `await PageSession.open(page, settings)`."""

    def __init__(self, page: Page, settings: Settings, *, max_tokens: int | None = None) -> None:
        self.page = page
        self.settings = settings
        self.max_tokens = max_tokens if max_tokens is not None else settings.snapshot_max_tokens
        self.version = 0
        self.last: Snapshot | None = None
        self._recent: dict[int, Snapshot] = {}  # a few past versions, to re-find stale refs
        self._refs: RefTable | None = None
        self._navigated = False
        page.on("framenavigated", self._on_navigated)

    @classmethod
    async def open(cls, page: Page, settings: Settings, **kw: Any) -> PageSession:
        """Install the init script (closed shadow roots, click listeners) before browsing."""
        await frames.install(page)
        return cls(page, settings, **kw)

    def _on_navigated(self, frame: Frame) -> None:
        if frame == self.page.main_frame:
            self._navigated = True

    @property
    def refs(self) -> RefTable | None:
        """Ref table of the current snapshot (None before the first or after navigation)."""
        return self._refs

    @property
    def url(self) -> str:
        return self.page.url

    async def goto(self, url: str) -> ToolResult:
        before = self.page.url
        try:
            await self.page.goto(url, wait_until="domcontentloaded", timeout=NAV_TIMEOUT_MS)
        except Error as exc:
            return actions.failure("navigation_failed", f"Could not open {url}: {exc.message}")
        self._refs = None
        return ToolResult(
            success=True, reason=f"Opened {self.page.url}", page_changed=before != url
        )

    async def snapshot(self) -> Snapshot:
        """New version, new refs; older refs become stale."""
        self.version += 1
        self._navigated = False
        snap, refs = await capture(self.page, version=self.version, max_tokens=self.max_tokens)
        self.last, self._refs = snap, refs
        self._recent = {v: s for v, s in self._recent.items() if v > snap.version - 3}
        self._recent[snap.version] = snap
        return snap

    async def observe(self, mode: str = "compact") -> Observation:
        snap = await self.snapshot()
        text = snap.text
        if mode == "pagemem":
            pagemem = importlib.import_module("workers.browser.pagemem")
            text = pagemem.render(snap, max_tokens=self.max_tokens)
        elif mode not in ("compact", "som"):
            raise ValueError(f"unknown observation mode {mode!r} (compact|pagemem|som)")
        stats = dict(snap.stats)
        return Observation(
            url=snap.url,
            title=snap.title,
            text=text,
            version=snap.version,
            refs=int(stats["refs"]),
            interactive=int(stats["interactive"]),
            fingerprint=fingerprint(snap),
            tokens=(len(text) + 3) // 4,
            stats=stats,
        )

    async def screenshot(self) -> bytes:
        return await self.page.screenshot(type="jpeg", quality=70)

    async def execute(self, action: Action) -> ToolResult:
        handler = _HANDLERS.get(action.name)
        if handler is None:
            return actions.failure(
                "unknown_tool", f"No browser tool named {action.name!r}.", *sorted(_HANDLERS)
            )
        try:
            return await handler(self, dict(action.args))
        except RefError as exc:
            return await self._ref_failure(exc, action)
        except Error as exc:
            return actions.explain(exc, action.name)

    async def _ref_failure(self, exc: RefError, action: Action) -> ToolResult:
        """Stale/bad ref: refuse, take a fresh snapshot, point at the element's new refs."""
        key = _ref_key(action.args.get("ref"))
        past = self._recent.get(int(key.split(":")[0])) if key else None
        old = past.node(key) if past else None
        fresh = await self.snapshot()
        alternatives: list[str] = []
        if old is not None:
            alternatives = [
                f"{n.ref} {n.role} {n.name!r}"
                for n in fresh.nodes
                if n.interactive and n.role == old.role and n.name == old.name
            ][:3]
        return ToolResult(
            success=False,
            error=exc.code,
            reason=exc.reason + f" A fresh snapshot (version {fresh.version}) is attached.",
            alternatives=tuple(alternatives),
            data={"snapshot": fresh.text, "version": fresh.version},
        )

    async def _element(self, args: dict[str, Any]) -> tuple[Any, RefTarget]:
        if self._navigated and self._refs is not None:
            self._refs = None
        return await resolve(self._refs, args.get("ref"))

    async def _verified(
        self, what: str, frame: Frame | None, act: Callable[[], Awaitable[Any]], ghost: bool
    ) -> ToolResult:
        """Act, then report whether the URL or DOM changed (seed 002 verify-act-verify)."""
        watched = list({self.page.main_frame, *(() if frame is None else (frame,))})
        await actions.watch(watched)
        before = self.page.url
        self._navigated = False
        await act()
        await asyncio.sleep(SETTLE_S)
        navigated = self._navigated or self.page.url != before
        changed = navigated or await actions.changes(watched) > 0
        if navigated:
            self._refs = None
        if ghost and not changed:
            return actions.failure(
                "no_effect",
                f"{what} had no visible effect (DOM and URL unchanged); the element may be "
                "disabled, decorative or covered.",
                "try a different element or press_key Enter on the focused element",
                "observe again and look for a dialog or overlay",
            )
        reason = f"{what} done" + (f"; now at {self.page.url}" if navigated else "")
        return ToolResult(success=True, reason=reason, page_changed=navigated)

    async def _click(self, args: dict[str, Any]) -> ToolResult:
        el, target = await self._element(args)
        return await self._verified(
            f"click {args['ref']}", target.frame, lambda: actions.click(el, args), ghost=True
        )

    async def _type(self, args: dict[str, Any]) -> ToolResult:
        el, target = await self._element(args)
        return await self._verified(
            f"type into {args['ref']}",
            target.frame,
            lambda: actions.type_text(self.page, el, args),
            ghost=False,
        )

    async def _select(self, args: dict[str, Any]) -> ToolResult:
        el, target = await self._element(args)
        if target.role not in ("combobox", "listbox"):
            return actions.failure(
                "not_a_select",
                f"{args['ref']} is a {target.role}, not a <select>.",
                "click it to open the list, then click the option",
            )
        return await self._verified(
            f"select in {args['ref']}", target.frame, lambda: actions.select_option(el, args), False
        )

    async def _hover(self, args: dict[str, Any]) -> ToolResult:
        el, target = await self._element(args)
        return await self._verified(
            f"hover {args['ref']}",
            target.frame,
            lambda: el.hover(timeout=actions.ACTION_TIMEOUT_MS),
            ghost=False,
        )

    async def _focus(self, args: dict[str, Any]) -> ToolResult:
        el, target = await self._element(args)
        return await self._verified(f"focus {args['ref']}", target.frame, el.focus, ghost=False)

    async def _press(self, args: dict[str, Any]) -> ToolResult:
        key = str(args.get("key", "Enter"))
        return await self._verified(
            f"press {key}", None, lambda: self.page.keyboard.press(key), ghost=False
        )

    async def _scroll(self, args: dict[str, Any]) -> ToolResult:
        el, frame = None, None
        if args.get("ref"):
            el, target = await self._element(args)
            frame = target.frame
        return await self._verified(
            f"scroll {args.get('direction', 'down')}",
            frame,
            lambda: actions.scroll(self.page, el, args),
            ghost=False,
        )

    async def _navigate(self, args: dict[str, Any]) -> ToolResult:
        return await self.goto(str(args.get("url", "")))

    async def _back(self, args: dict[str, Any]) -> ToolResult:
        before = self.page.url
        response = await self.page.go_back(wait_until="domcontentloaded", timeout=NAV_TIMEOUT_MS)
        if response is None and self.page.url == before:
            return actions.failure("no_history", "There is no previous page in this tab.")
        self._refs = None
        return ToolResult(success=True, reason=f"Back at {self.page.url}", page_changed=True)

    async def _wait(self, args: dict[str, Any]) -> ToolResult:
        seconds = min(float(args.get("seconds", args.get("time", 1.0))), 10.0)
        await asyncio.sleep(seconds)
        return ToolResult(success=True, reason=f"waited {seconds:g}s")

    async def _expand(self, args: dict[str, Any]) -> ToolResult:
        """snapshot(start, end): trimmed lines of the current snapshot (seed 003 §6.1)."""
        if self.last is None:
            self.last = await self.snapshot()
        start, end = _range(args, self.last.version)
        text = self.last.expand(start, end, max_tokens=self.max_tokens)
        return ToolResult(
            success=True,
            reason=f"refs {start}-{end} of snapshot {self.last.version}",
            data={"text": text, "version": self.last.version},
        )

    async def _bulk(self, args: dict[str, Any]) -> ToolResult:
        """Several independent actions in one call; stops at the first failure (seed 003 §5.3)."""
        done: list[str] = []
        changed = False
        for step in args.get("actions", []):
            step = dict(step)
            name = str(step.pop("type", step.pop("name", "")))
            result = await self.execute(Action(name, step))
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


def _ref_key(ref: object) -> str:
    try:
        v, n = parse_ref(ref)
    except RefError:
        return ""
    return f"{v}:{n}"


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


def fingerprint(snap: Snapshot) -> str:
    """Structure-and-content hash of the view, independent of the version in refs."""
    return hashlib.sha256(_REF_IN_LINE.sub("", snap.text).encode()).hexdigest()[:16]


_Handler = Callable[[PageSession, dict[str, Any]], Awaitable[ToolResult]]
_HANDLERS: dict[str, _Handler] = {
    "click": PageSession._click,
    "type": PageSession._type,
    "select_option": PageSession._select,
    "hover": PageSession._hover,
    "focus": PageSession._focus,
    "press_key": PageSession._press,
    "scroll": PageSession._scroll,
    "navigate": PageSession._navigate,
    "go_back": PageSession._back,
    "wait": PageSession._wait,
    "snapshot": PageSession._expand,
    "bulk": PageSession._bulk,
}
