"""Perception benchmark: our snapshot vs Playwright aria_snapshot(mode="ai") vs browser-use.

Run (not part of CI, it is a script, not a pytest test):
    .venv/bin/python bench/perception/run.py [--limit N] [--miniwob N] [--json out.json]

Per page and tool: o200k tokens, extraction time, interactive elements exposed, hidden-text
leaks; then whether every element browser-use indexes is reachable by one of our refs
(browser-use sees our refs as data-agent-id attributes set through the Set-of-Mark channel).
Prints a markdown table of medians and ratios.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import math
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import harness
from playwright.async_api import Page, async_playwright

from workers.browser import frames, pagemem, som
from workers.browser.fingerprint import capture as fingerprint
from workers.browser.miniwob_page import MiniWobPage
from workers.browser.snapshot import capture

TOOLS = ("ours", "pagemem", "playwright", "browser_use")


@dataclass
class PageResult:
    url: str
    kind: str
    tokens: dict[str, int] = field(default_factory=dict)
    ms: dict[str, float] = field(default_factory=dict)
    interactive: dict[str, int] = field(default_factory=dict)
    leaks: dict[str, list[str]] = field(default_factory=dict)
    hidden_samples: int = 0
    bu_indexed: int = 0
    bu_reached: int = 0
    bu_unreached: list[str] = field(default_factory=list)
    fingerprint_ms: float = 0.0
    error: str = ""


def _bu_label(node: Any) -> str:
    text = node.get_all_children_text()[:40] if hasattr(node, "get_all_children_text") else ""
    return f"<{node.tag_name}> {text!r} {dict(list(node.attributes.items())[:3])}"


def _reached(node: Any, ours: list[tuple[float, float, float, float]]) -> bool:
    """A browser-use element is reachable when it, an ancestor (3 up) or a descendant carries
    one of our refs, or its box overlaps one of our interactive boxes (IoU ≥ 0.5 / centre)."""
    cur, depth = node, 0
    while cur is not None and depth <= 3:
        if "data-agent-id" in (cur.attributes or {}):
            return True
        cur, depth = cur.parent_node, depth + 1
    stack = list(node.children_nodes or [])
    while stack:
        child = stack.pop()
        if "data-agent-id" in (child.attributes or {}):
            return True
        stack.extend(child.children_nodes or [])
    pos = node.absolute_position
    if pos is None:
        return False
    cx, cy = pos.x + pos.width / 2, pos.y + pos.height / 2
    return any(x <= cx <= x + w and y <= cy <= y + h for x, y, w, h in ours)


async def _ours(page: Page, res: PageResult, enc: Any, version: int) -> Any:
    t0 = time.perf_counter()
    snap, refs = await capture(page, version=version)
    res.ms["ours"] = (time.perf_counter() - t0) * 1000
    t1 = time.perf_counter()
    text_pm = pagemem.render(snap)
    res.ms["pagemem"] = res.ms["ours"] + (time.perf_counter() - t1) * 1000
    res.tokens["ours"] = harness.count_tokens(enc, snap.text)
    res.tokens["pagemem"] = harness.count_tokens(enc, text_pm)
    n = sum(1 for node in snap.nodes if node.interactive)
    res.interactive["ours"] = res.interactive["pagemem"] = n
    return snap, refs, {"ours": snap.text, "pagemem": text_pm}


async def _playwright(page: Page, res: PageResult, enc: Any) -> str:
    t0 = time.perf_counter()
    text = await page.aria_snapshot(mode="ai")
    res.ms["playwright"] = (time.perf_counter() - t0) * 1000
    res.tokens["playwright"] = harness.count_tokens(enc, text)
    res.interactive["playwright"] = text.count("[ref=")
    return text


async def _browser_use(session: Any, res: PageResult, enc: Any, ours_boxes: list) -> str:
    t0 = time.perf_counter()
    state = await session.get_browser_state_summary(include_screenshot=False)
    text = state.dom_state.llm_representation()
    res.ms["browser_use"] = (time.perf_counter() - t0) * 1000
    res.tokens["browser_use"] = harness.count_tokens(enc, text)
    selector_map = state.dom_state.selector_map
    res.interactive["browser_use"] = len(selector_map)
    res.bu_indexed = len(selector_map)
    for node in selector_map.values():
        if _reached(node, ours_boxes):
            res.bu_reached += 1
        elif len(res.bu_unreached) < 5:
            res.bu_unreached.append(_bu_label(node))
    return text


async def measure(page: Page, session: Any, url: str, kind: str, enc: Any, v: int) -> PageResult:
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
    t0 = time.perf_counter()
    await fingerprint(page)
    res.fingerprint_ms = (time.perf_counter() - t0) * 1000
    snap, refs, texts = await _ours(page, res, enc, v)
    texts["playwright"] = await _playwright(page, res, enc)
    interactive = [n for n in snap.nodes if n.interactive]
    await som._tag(refs, interactive)  # channel 2 of Set-of-Mark: data-agent-id = our ref
    sx, sy = snap.viewport.scroll_x, snap.viewport.scroll_y
    boxes = [(n.bbox[0] + sx, n.bbox[1] + sy, n.bbox[2], n.bbox[3]) for n in interactive]
    try:
        texts["browser_use"] = await _browser_use(session, res, enc, boxes)
    finally:
        await som.clear(page)
    res.leaks = {tool: harness.leaks(texts[tool], snippets) for tool in TOOLS}
    if kind == "probe":  # planted hidden strings, matched exactly
        planted = harness.planted(html)
        res.hidden_samples = len(planted)
        res.leaks = {tool: harness.planted_leaks(texts[tool], planted) for tool in TOOLS}
    return res


def pages(base: str, limit: int | None, miniwob: int | None) -> list[tuple[str, str]]:
    real = sorted(p.name for p in harness.REALPAGES.glob("*.html"))[:limit]
    out = [(f"{base}/probe/probe.html", "probe"), (f"{base}/probe-a/probe.html", "probe")]
    out += [(f"{base}/realpages/{name}", "real") for name in real]
    tasks = sorted(p.name for p in (harness.miniwob_html() / "miniwob").glob("*.html"))
    out += [(f"{base}/miniwob/miniwob/{name}", "miniwob") for name in tasks[:miniwob]]
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
                session = BrowserSession(cdp_url=cdp, is_local=False)
                await session.start()
                for v, (url, kind) in enumerate(pages(base, args.limit, args.miniwob), start=1):
                    try:
                        res = await measure(page, session, url, kind, enc, v)
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


def report(results: list[PageResult]) -> str:
    ok = [r for r in results if not r.error]
    lines = [
        f"pages: {len(ok)} measured ({sum(r.kind == 'real' for r in ok)} real, "
        f"{sum(r.kind == 'miniwob' for r in ok)} MiniWoB++, "
        f"{sum(r.kind == 'probe' for r in ok)} probe), {len(results) - len(ok)} failed",
        "",
        "| tool | median tokens (o200k) | ratio vs browser-use | median extraction ms "
        "| p90 ms | median interactive | pages with hidden-text leaks | leaked snippets |",
        "|---|---|---|---|---|---|---|---|",
    ]
    bu_tokens = _median([r.tokens["browser_use"] for r in ok])
    for tool in TOOLS:
        toks = [r.tokens[tool] for r in ok]
        ms = sorted(r.ms[tool] for r in ok)
        p90 = ms[max(0, math.ceil(0.9 * len(ms)) - 1)] if ms else float("nan")
        leak_pages = sum(1 for r in ok if r.leaks[tool])
        leak_total = sum(len(r.leaks[tool]) for r in ok)
        lines.append(
            f"| {tool} | {_median(toks):.0f} | {_median(toks) / bu_tokens:.2f} "
            f"| {_median(ms):.1f} | {p90:.1f} | {_median([r.interactive[tool] for r in ok]):.0f} "
            f"| {leak_pages} | {leak_total} |"
        )
    indexed = sum(r.bu_indexed for r in ok)
    reached = sum(r.bu_reached for r in ok)
    full = sum(1 for r in ok if r.bu_reached == r.bu_indexed)
    per_page = [r.tokens["ours"] / max(1, r.tokens["browser_use"]) for r in ok]
    lines += [
        "",
        f"- browser-use indexed elements reachable by our refs: {reached}/{indexed} "
        f"({100 * reached / max(1, indexed):.1f}%); pages with all reachable: {full}/{len(ok)}",
        f"- median per-page token ratio ours/browser-use: {_median(per_page):.2f}",
        f"- median fingerprint (change gate) cost: "
        f"{_median([r.fingerprint_ms for r in ok]):.1f} ms",
        f"- hidden-text ground-truth snippets: {sum(r.hidden_samples for r in ok)} over "
        f"{sum(1 for r in ok if r.hidden_samples)} pages",
    ]
    for kind in ("real", "miniwob"):
        sub = [r for r in ok if r.kind == kind]
        if sub:
            lines.append(
                f"- {kind}: median tokens "
                + ", ".join(f"{t}={_median([r.tokens[t] for r in sub]):.0f}" for t in TOOLS)
                + "; median ms "
                + ", ".join(f"{t}={_median([r.ms[t] for r in sub]):.1f}" for t in TOOLS)
            )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=None, help="real pages to run (default all)")
    parser.add_argument("--miniwob", type=int, default=None, help="MiniWoB++ tasks (default all)")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--json", type=Path, default=None, help="write per-page results here")
    args = parser.parse_args()
    results = asyncio.run(run(args))
    if args.json:
        args.json.write_text(json.dumps([asdict(r) for r in results], indent=1))
    print(report(results))


if __name__ == "__main__":
    main()
