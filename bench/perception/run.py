"""Perception benchmark: our observation vs Playwright aria_snapshot(mode="ai") vs browser-use.

Run (not part of CI, it is a script, not a pytest test):
    .venv/bin/python bench/perception/run.py [--limit N] [--miniwob N] [--json out.json]

Fairness: one Chromium, one tab, the same pages; every tool is timed the same way (wall
clock around its one public call: PageSession.observe(), page.aria_snapshot(),
get_browser_state_summary()), first call on a freshly loaded page and an immediate repeat
reported separately, and the order of the tools rotates from page to page so none always
pays the page's first layout. Ours is the whole observe() (fingerprint gate, snapshot,
modal check, rendering); its repeat is change-gated, so the ungated repeat is reported too.
Per page and tool: o200k tokens, ms, interactive elements exposed, hidden-text leaks; then
whether every element browser-use indexes is reachable by one of our refs (read in an extra,
untimed browser-use pass while our refs sit on the elements as data-agent-id attributes).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import math
import os
import platform
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, async_playwright

from app.settings import Settings
from workers.browser.observe import frames, som
from workers.browser.observe.miniwob_page import MiniWobPage
from workers.browser.session import PageSession

TOOLS = ("ours", "pagemem", "playwright", "browser_use")
LABELS = {
    "ours": "ours (compact)",
    "pagemem": "ours (PageMem)",
    "playwright": "Playwright ai",
    "browser_use": "browser-use",
}


@dataclass
class PageResult:
    url: str
    kind: str
    order: list[str] = field(default_factory=list)
    tokens: dict[str, int] = field(default_factory=dict)
    ms: dict[str, float] = field(default_factory=dict)  # first call on the loaded page
    repeat_ms: dict[str, float] = field(default_factory=dict)  # immediate second call
    ours_fresh_repeat_ms: float = 0.0  # our repeat with the change gate bypassed
    ours_repeat_reused: bool = False
    interactive: dict[str, int] = field(default_factory=dict)
    leaks: dict[str, list[str]] = field(default_factory=dict)
    hidden_samples: int = 0
    bu_indexed: int = 0
    bu_reached: int = 0
    bu_unreached: list[str] = field(default_factory=list)
    bu_not_controls: dict[str, int] = field(default_factory=dict)  # excluded, see _not_a_control
    error: str = ""


def _bu_label(node: Any) -> str:
    text = node.get_all_children_text()[:40] if hasattr(node, "get_all_children_text") else ""
    return f"<{node.tag_name}> {text!r} {dict(list(node.attributes.items())[:3])}"


_MARKS = ("data-agent-id", "data-agent-via")  # via: a <label> whose control has our ref


def _reached(node: Any, ours: list[tuple[float, float, float, float]]) -> bool:
    """A browser-use element is reachable when it, an ancestor (3 up) or a descendant carries
    one of our refs (or labels a control that does), or its centre lies in one of our
    interactive boxes."""
    cur, depth = node, 0
    while cur is not None and depth <= 3:
        if any(m in (cur.attributes or {}) for m in _MARKS):
            return True
        cur, depth = cur.parent_node, depth + 1
    stack = list(node.children_nodes or [])
    while stack:
        child = stack.pop()
        if any(m in (child.attributes or {}) for m in _MARKS):
            return True
        stack.extend(child.children_nodes or [])
    pos = node.absolute_position
    if pos is None:
        return False
    cx, cy = pos.x + pos.width / 2, pos.y + pos.height / 2
    return any(x <= cx <= x + w and y <= cy <= y + h for x, y, w, h in ours)


def _not_a_control(node: Any) -> str:
    """Why an unreached browser-use element is no control a person can use, or "".

    Fairness fix (perception engineer C): browser-use indexes elements no one can see or
    click, which our snapshot must not show (issue 3 hidden-text rules): zero-sized boxes,
    boxes wholly above/left of the document, subtrees under aria-hidden="true", elements
    that paint nothing (own visibility hidden, own or ancestor opacity 0), <hr>
    separators, <iframe> elements (a frame's own controls are indexed separately by both
    tools), and hits of browser-use's icon-size heuristic (any 10-50 px element with a class
    attribute, e.g. MiniWoB's `.name`/`.hour-label` text spans, 16 px image placeholders)
    that have no click listener (browser-use's own getEventListeners result), no pointer
    cursor, no interactive tag or attribute and no ARIA widget role (image, time, heading,
    generic, none are content roles), and static table rows/cells (<tr>/<td>/<th>, ARIA
    row/cell are not widgets) with no listener, pointer cursor or tabindex. Caveat:
    browser-use skips listener detection on pages over 10000 elements.
    Only unreached elements are classified; the counts are reported, not hidden.
    """
    pos = node.absolute_position
    if pos is not None and (pos.width < 1 or pos.height < 1):
        return "zero-size"
    if pos is not None and (pos.x + pos.width <= 0 or pos.y + pos.height <= 0):
        return "off-document"
    if node.tag_name in ("hr", "iframe", "frame"):
        return node.tag_name
    cur = node
    while cur is not None:
        if (cur.attributes or {}).get("aria-hidden") == "true":
            return "aria-hidden"
        cur = cur.parent_node
    if _transparent(node):
        return "transparent"
    if _icon_heuristic_only(node):
        return "icon-heuristic"
    return "table-cell" if _static_cell(node) else ""


def _transparent(node: Any) -> bool:
    """It or an ancestor paints nothing (opacity 0, visibility hidden): browser-use checks
    only the element's own style, e.g. medium-3's fixed share bar waiting at opacity 0."""
    cur = node
    while cur is not None:
        snap = cur.snapshot_node
        styles = (snap.computed_styles if snap is not None else None) or {}
        if styles.get("opacity") in ("0", "0.0") or (
            cur is node and styles.get("visibility") in ("hidden", "collapse")
        ):
            return True
        cur = cur.parent_node
    return False


def _static_cell(node: Any) -> bool:
    attrs = node.attributes or {}
    snap = node.snapshot_node
    return (
        node.tag_name in ("tr", "td", "th")
        and not node.has_js_click_listener
        and not (snap is not None and (snap.cursor_style or "") == "pointer")
        and not _CONTROL_ATTRS & set(attrs)
    )


_CONTROL_TAGS = {"a", "button", "input", "select", "textarea", "details", "summary", "option"}
_CONTROL_ATTRS = {"onclick", "onmousedown", "onmouseup", "onkeydown", "onkeyup", "tabindex", "role"}


def _icon_heuristic_only(node: Any) -> bool:
    """Indexed only because browser-use guesses 10-50 px boxes with a class are icons."""
    snap = node.snapshot_node
    bounds = snap.bounds if snap is not None else None
    if bounds is None or not (10 <= bounds.width <= 50 and 10 <= bounds.height <= 50):
        return False
    attrs = node.attributes or {}
    return not (
        node.has_js_click_listener
        or (snap.cursor_style or "") == "pointer"
        or node.tag_name in _CONTROL_TAGS
        or _CONTROL_ATTRS & set(attrs)
        or "aria-label" in attrs
        or "data-action" in attrs
        or (node.ax_node is not None and node.ax_node.role in _WIDGET_ROLES)
    )


# ARIA widget roles: an AX role outside these (generic, none, image, time, LabelText, heading,
# StaticText ...) is content, not something to operate (WAI-ARIA 1.2 §5.3.2 widget roles).
_WIDGET_ROLES = {
    "button",
    "link",
    "checkbox",
    "radio",
    "switch",
    "tab",
    "menuitem",
    "menuitemcheckbox",
    "menuitemradio",
    "option",
    "combobox",
    "textbox",
    "searchbox",
    "slider",
    "spinbutton",
    "listbox",
    "treeitem",
    "gridcell",
    "scrollbar",
    "menu",
    "menubar",
    "tablist",
    "tree",
    "grid",
    "radiogroup",
    "PopUpButton",
    "ComboBoxGrouping",
    "ComboBoxMenuButton",
    "TextField",
}


async def _timed(call: Callable[[], Awaitable[Any]]) -> tuple[Any, float]:
    t0 = time.perf_counter()
    out = await call()
    return out, (time.perf_counter() - t0) * 1000


class Tools:
    """The four tools over one tab; each `run_<tool>` times a first and a repeat call."""

    def __init__(self, page: Page, bu: Any, enc: Any, settings: Settings) -> None:
        self.page, self.bu, self.enc = page, bu, enc
        self.compact = PageSession(page, settings)
        self.pagemem = PageSession(page, settings)

    async def _session(self, res: PageResult, tool: str, session: PageSession) -> str:
        session.invalidate()  # a new page: the gate would see it anyway, this makes it certain
        obs, res.ms[tool] = await _timed(lambda: session.observe(obs_mode(tool)))
        again, res.repeat_ms[tool] = await _timed(lambda: session.observe(obs_mode(tool)))
        if tool == "ours":
            res.ours_repeat_reused = bool(again.stats.get("reused"))
            session.invalidate()
            _, res.ours_fresh_repeat_ms = await _timed(lambda: session.observe("compact"))
        res.tokens[tool] = harness.count_tokens(self.enc, obs.text)
        res.interactive[tool] = obs.interactive
        return str(obs.text)

    async def run_ours(self, res: PageResult) -> str:
        return await self._session(res, "ours", self.compact)

    async def run_pagemem(self, res: PageResult) -> str:
        return await self._session(res, "pagemem", self.pagemem)

    async def run_playwright(self, res: PageResult) -> str:
        text, res.ms["playwright"] = await _timed(lambda: self.page.aria_snapshot(mode="ai"))
        _, res.repeat_ms["playwright"] = await _timed(lambda: self.page.aria_snapshot(mode="ai"))
        res.tokens["playwright"] = harness.count_tokens(self.enc, text)
        res.interactive["playwright"] = text.count("[ref=")
        return str(text)

    async def _bu_state(self) -> Any:
        return await self.bu.get_browser_state_summary(include_screenshot=False)

    async def run_browser_use(self, res: PageResult) -> str:
        state, res.ms["browser_use"] = await _timed(self._bu_state)
        _, res.repeat_ms["browser_use"] = await _timed(self._bu_state)
        text = state.dom_state.llm_representation()
        res.tokens["browser_use"] = harness.count_tokens(self.enc, text)
        res.interactive["browser_use"] = len(state.dom_state.selector_map)
        return str(text)

    async def reachability(self, res: PageResult) -> None:
        """Untimed: our refs as data-agent-id, then browser-use reads the DOM once more."""
        self.compact.invalidate()
        obs = await self.compact.observe("compact")
        snap, refs = self.compact.last, self.compact.refs
        assert snap is not None and refs is not None and snap.version == obs.version
        interactive = [n for n in snap.nodes if n.interactive]
        sx, sy = snap.viewport.scroll_x, snap.viewport.scroll_y
        boxes = [(n.bbox[0] + sx, n.bbox[1] + sy, n.bbox[2], n.bbox[3]) for n in interactive]
        await som._tag(refs, interactive)  # channel 2 of Set-of-Mark: data-agent-id = our ref
        try:
            await _label_via(self.page, "mark")
            selector_map = (await self._bu_state()).dom_state.selector_map
        finally:
            await som.clear(self.page)
            await _label_via(self.page, "clear")
        res.bu_indexed = len(selector_map)
        for node in selector_map.values():
            if _reached(node, boxes):
                res.bu_reached += 1
            elif why := _not_a_control(node):
                res.bu_indexed -= 1
                res.bu_not_controls[why] = res.bu_not_controls.get(why, 0) + 1
            elif len(res.bu_unreached) < 5:
                res.bu_unreached.append(_bu_label(node))


async def _label_via(page: Page, op: str) -> None:
    """Mark (or unmark) labels whose control carries our ref, in every frame."""
    script = harness.label_via_script()
    for frame in page.frames:
        with contextlib.suppress(PlaywrightError):
            await frame.evaluate(script, op)


def obs_mode(tool: str) -> str:
    return "compact" if tool == "ours" else "pagemem"


async def measure(tools: Tools, url: str, kind: str, index: int) -> PageResult:
    page = tools.page
    res = PageResult(url=url, kind=kind)
    if kind == "miniwob":
        mw = MiniWobPage(page)
        await mw.open(url)
        await mw.start(seed=1, keep_timer=False)
    else:
        await page.goto(url, wait_until="load", timeout=30_000)
    await page.wait_for_timeout(200)
    snippets = await page.evaluate(harness.hidden_script(), 50)
    html = await page.content()
    res.hidden_samples = len(snippets)
    k = index % len(TOOLS)
    res.order = list(TOOLS[k:] + TOOLS[:k])  # rotate: no tool always pays the first layout
    texts: dict[str, str] = {}
    for tool in res.order:
        texts[tool] = await getattr(tools, f"run_{tool}")(res)
    await tools.reachability(res)
    res.leaks = {tool: harness.leaks(texts[tool], snippets) for tool in TOOLS}
    if kind == "probe":  # planted hidden strings, matched exactly
        planted = harness.planted(html)
        res.hidden_samples = len(planted)
        res.leaks = {tool: harness.planted_leaks(texts[tool], planted) for tool in TOOLS}
    return res


def pages(
    base: str, limit: int | None, miniwob: int | None, only: list[str] | None = None
) -> list[tuple[str, str]]:
    real = sorted(p.name for p in harness.REALPAGES.glob("*.html"))[:limit]
    out = [(f"{base}/probe/probe.html", "probe"), (f"{base}/probe-a/probe.html", "probe")]
    out += [(f"{base}/realpages/{name}", "real") for name in real]
    tasks = sorted(p.name for p in (harness.miniwob_html() / "miniwob").glob("*.html"))
    out += [(f"{base}/miniwob/miniwob/{name}", "miniwob") for name in tasks[:miniwob]]
    if only:  # --only NAME...: just these pages (file name without .html), for a quick check
        out = [(u, k) for u, k in out if u.rsplit("/", 1)[-1].removesuffix(".html") in only]
    return out


async def run(args: argparse.Namespace) -> list[PageResult]:
    harness.disable_telemetry()
    from browser_use import BrowserSession

    logging.getLogger("browser_use").setLevel(logging.ERROR)
    enc = harness.o200k()
    chrome = harness.Chromium(args.chromium)
    cdp = chrome.start()
    results: list[PageResult] = []
    try:
        with harness.serve() as base:
            async with async_playwright() as pw:
                browser = await pw.chromium.connect_over_cdp(cdp)
                context = browser.contexts[0]
                await frames.install(context)
                page = context.pages[0] if context.pages else await context.new_page()
                session = BrowserSession(cdp_url=cdp, is_local=False)  # type: ignore[call-overload]
                await session.start()
                tools = Tools(page, session, enc, Settings(chromium_path=args.chromium))
                for i, (url, kind) in enumerate(pages(base, args.limit, args.miniwob, args.only)):
                    try:
                        res = await measure(tools, url, kind, i)
                    except Exception as exc:  # noqa: BLE001 - one broken page must not end the run
                        res = PageResult(url=url, kind=kind, error=f"{type(exc).__name__}: {exc}")
                    results.append(res)
                    print(_line(res), file=sys.stderr, flush=True)
                await session.kill()
                await browser.close()
    finally:
        chrome.stop()
    return results


def _line(r: PageResult) -> str:
    if r.error:
        return f"{r.kind:8} {r.url.rsplit('/', 1)[-1]:40} ERROR {r.error[:120]}"
    toks = " ".join(f"{t}={r.tokens.get(t, 0)}" for t in TOOLS)
    return f"{r.kind:8} {r.url.rsplit('/', 1)[-1]:40} {toks} bu_reach={r.bu_reached}/{r.bu_indexed}"


def _median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.9 * len(ordered)) - 1)] if ordered else float("nan")


def _ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}" if b else "n/a"


def _tool_rows(ok: list[PageResult]) -> list[str]:
    med = {t: _median([r.tokens[t] for r in ok]) for t in TOOLS}
    ms = {t: _median([r.ms[t] for r in ok]) for t in TOOLS}
    rows = [
        "| tool | tokens median | tokens p90 | first ms median | first ms p90 "
        "| repeat ms median | repeat ms p90 | interactive median | leak pages | leaked snippets "
        "| tokens ÷ browser-use | tokens ÷ Playwright | first ms ÷ browser-use "
        "| first ms ÷ Playwright |",
        "|---|" + "---|" * 13,
    ]
    for t in TOOLS:
        first = [r.ms[t] for r in ok]
        repeat = [r.repeat_ms[t] for r in ok]
        rows.append(
            f"| {LABELS[t]} | {med[t]:.0f} | {_p90([r.tokens[t] for r in ok]):.0f} "
            f"| {ms[t]:.1f} | {_p90(first):.1f} | {_median(repeat):.1f} | {_p90(repeat):.1f} "
            f"| {_median([r.interactive[t] for r in ok]):.0f} "
            f"| {sum(1 for r in ok if r.leaks[t])} | {sum(len(r.leaks[t]) for r in ok)} "
            f"| {_ratio(med[t], med['browser_use'])} | {_ratio(med[t], med['playwright'])} "
            f"| {_ratio(ms[t], ms['browser_use'])} | {_ratio(ms[t], ms['playwright'])} |"
        )
    return rows


def _sum_counts(dicts: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for d in dicts:
        for k, v in d.items():
            out[k] = out.get(k, 0) + v
    return out


def report(results: list[PageResult], meta: dict[str, Any] | None = None) -> str:
    ok = [r for r in results if not r.error]
    lines = [f"- {k}: {v}" for k, v in (meta or {}).items()]
    lines += [
        f"pages: {len(ok)} measured ({sum(r.kind == 'real' for r in ok)} real, "
        f"{sum(r.kind == 'miniwob' for r in ok)} MiniWoB++, "
        f"{sum(r.kind == 'probe' for r in ok)} probe), {len(results) - len(ok)} failed",
        "",
        *_tool_rows(ok),
    ]
    indexed = sum(r.bu_indexed for r in ok)
    reached = sum(r.bu_reached for r in ok)
    excluded = sum(sum(r.bu_not_controls.values()) for r in ok)
    raw = indexed + excluded  # every element browser-use indexed, exclusions counted as misses
    full = sum(1 for r in ok if r.bu_reached == r.bu_indexed)
    per_page = [r.tokens["ours"] / max(1, r.tokens["browser_use"]) for r in ok]
    fresh = [r.ours_fresh_repeat_ms for r in ok]
    lines += [
        "",
        f"- browser-use indexed elements reachable by our refs: {reached}/{indexed} "
        f"({100 * reached / max(1, indexed):.1f}%) after the exclusions below, "
        f"{reached}/{raw} ({100 * reached / max(1, raw):.1f}%) of everything it indexed; "
        f"pages with all reachable: {full}/{len(ok)}",
        "- browser-use elements excluded as no usable control (see _not_a_control): "
        + (
            ", ".join(f"{k} {v}" for k, v in _sum_counts(r.bu_not_controls for r in ok).items())
            or "none"
        ),
        f"- median per-page token ratio ours/browser-use: {_median(per_page):.2f}",
        f"- our repeat observe() was served by the change gate on "
        f"{sum(r.ours_repeat_reused for r in ok)}/{len(ok)} pages; with the gate bypassed "
        f"(invalidate(), full snapshot) repeat ms median {_median(fresh):.1f}, "
        f"p90 {_p90(fresh):.1f}",
        f"- hidden-text ground-truth snippets: {sum(r.hidden_samples for r in ok)} over "
        f"{sum(1 for r in ok if r.hidden_samples)} pages",
    ]
    for kind in ("real", "miniwob", "probe"):
        sub = [r for r in ok if r.kind == kind]
        if sub:
            lines.append(
                f"- {kind} ({len(sub)}): median tokens "
                + ", ".join(f"{t}={_median([r.tokens[t] for r in sub]):.0f}" for t in TOOLS)
                + "; first ms median "
                + ", ".join(f"{t}={_median([r.ms[t] for r in sub]):.1f}" for t in TOOLS)
                + "; reachable "
                + f"{sum(r.bu_reached for r in sub)}/{sum(r.bu_indexed for r in sub)}"
            )
    return "\n".join(lines)


def _meta(args: argparse.Namespace, load_before: tuple[float, ...], seconds: float) -> dict:
    import importlib.metadata as md

    def version(pkg: str) -> str:
        try:
            return md.version(pkg)
        except md.PackageNotFoundError:
            return "?"

    cpu = next(
        (
            ln.split(":", 1)[1].strip()
            for ln in Path("/proc/cpuinfo").read_text().splitlines()
            if ln.startswith("model name")
        ),
        platform.processor(),
    )
    return {
        "command": " ".join([os.path.relpath(sys.executable), *sys.argv]),
        "date": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        "machine": f"{os.cpu_count()} CPU {cpu}, {platform.platform()}",
        "versions": f"playwright {version('playwright')}, browser-use {version('browser-use')}, "
        f"miniwob {version('miniwob')}, chromium {harness.chromium_version(args.chromium)}",
        "load average before (1/5/15 min)": " ".join(f"{x:.2f}" for x in load_before),
        "load average after": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "wall time": f"{seconds:.0f} s",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="real pages to run (default all)")
    parser.add_argument("--miniwob", type=int, default=None, help="MiniWoB++ tasks (default all)")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--only", nargs="+", default=None, help="page names (no .html)")
    parser.add_argument("--json", type=Path, default=None, help="write per-page results here")
    args = parser.parse_args()
    load, t0 = os.getloadavg(), time.monotonic()
    results = asyncio.run(run(args))
    meta = _meta(args, load, time.monotonic() - t0)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        payload = {"meta": meta, "pages": [asdict(r) for r in results]}
        args.json.write_text(json.dumps(payload, indent=1))
    print(report(results, meta))


if __name__ == "__main__":
    main()
