"""Page snapshot: the model's text view of a page, built by js/snapshot.js in every frame.

Seed 003 §4.2 (compact accessibility-style lines), §5.1.1 (versioned refs `v:n`), §6.1-6.2
(size cap with explicit trim markers, see compact.py). The JS walker runs once per frame;
this module splices child frames into their <iframe> placeholders and numbers the nodes.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from playwright.async_api import Error, Page

from workers.browser.observe import compact, frames, tokens
from workers.browser.observe.nodes import Modal, Node, Viewport
from workers.browser.observe.refs import RefTable, RefTarget
from workers.browser.runtime.regions import NO_REGIONS, HiddenRegions
from workers.browser.runtime.scripts import js

DEFAULT_MAX_TOKENS = 1500
FIRST_LOOK_CAP_S = 2.0  # the longest the first snapshot of a document waits for it to settle
FIRST_QUIET_S = 0.15  # no DOM mutation for this long = the page has drawn itself


@dataclass(frozen=True)
class Snapshot:
    """What one observation saw; `text` is the trimmed compact view the Worker model gets."""

    version: int
    url: str
    title: str
    nodes: tuple[Node, ...]
    text: str
    stats: Mapping[str, Any]
    viewport: Viewport = field(default_factory=lambda: Viewport(0, 0, 0, 0, 0, 0))
    modal: Modal | None = None  # the open modal when the walk ran (main frame only)

    def node(self, ref: str) -> Node | None:
        """The node a ref names in this snapshot, or None."""
        for n in self.nodes:
            if n.ref == ref:
                return n
        return None

    def expand(self, start: int, end: int, *, max_tokens: int = DEFAULT_MAX_TOKENS) -> str:
        """Lines for refs start..end (the seed 003 §6.1 `snapshot(startRef, endRef)` tool)."""
        chosen = [n for n in self.nodes if start <= n.index <= end]
        return compact.render_range(chosen, self.viewport, max_tokens=max_tokens)


async def capture(
    page: Page,
    *,
    version: int,
    max_tokens: int | None = DEFAULT_MAX_TOKENS,
    hidden: HiddenRegions = NO_REGIONS,
    fresh: bool | None = None,
    main: dict[str, Any] | None = None,
) -> tuple[Snapshot, RefTable]:
    """Snapshot plus the ref table that resolves its refs back to elements for actions;
    `hidden` subtrees are left out (and painted black for screenshots), see regions.py.
    `fresh`: whether the document is unwalked, when the caller's fingerprint just read it
    (js/fingerprint.js), saving first_look's own check; `main`: the main frame's walk of
    this version, read together with that fingerprint (frames.walk_gated)."""
    t0 = time.perf_counter()
    waited = 0.0
    if main is None:
        waited, main = await first_look(page, fresh=fresh, walk=(version, hidden.selectors))
    raw = await frames.collect(page, version, hidden.selectors, main)
    nodes, targets = _number(raw.nodes, version)
    vp = raw.main["viewport"]
    viewport = Viewport(
        float(vp["width"]),
        float(vp["height"]),
        float(vp["scrollX"]),
        float(vp["scrollY"]),
        float(vp["docWidth"]),
        float(vp["docHeight"]),
    )
    full = compact.render(nodes, version, viewport, max_tokens=None)
    text = full if max_tokens is None else compact.render(nodes, version, viewport, max_tokens)
    selected = str(raw.main.get("selection") or "")
    if selected:  # issue 26 item 4: what a drag-select selected, in words
        said = f"[selected text: {compact.quoted(selected)}]"
        full, text = f"{said}\n{full}", f"{said}\n{text}"
    stats = _stats(raw, nodes, text, full, time.perf_counter() - t0)
    stats["first_look_ms"] = round(waited * 1000, 1)
    snap = Snapshot(
        version,
        str(raw.main["url"]),
        str(raw.main["title"]),
        nodes,
        text,
        stats,
        viewport,
        Modal.from_js(raw.main.get("modal")),
    )
    return snap, RefTable(version, targets)


async def first_look(
    page: Page,
    cap_s: float = FIRST_LOOK_CAP_S,
    *,
    fresh: bool | None = None,
    walk: tuple[int, tuple[str, ...]] | None = None,
) -> tuple[float, dict[str, Any] | None]:
    """Before the first snapshot of a document (issue 7, real-model finding): wait for its
    load event and a quiet DOM window (js/first_look.js: no element added or removed),
    together at most `cap_s`; later snapshots of the same document do not wait. Returns the
    seconds waited (0.0 when the document was seen before) and, with `walk` (version,
    hidden selectors), the main frame's walk made in the same call as the quiet window's
    wait (frames.walk_after), or None when no such call was made. `fresh` None: ask the
    page."""
    if fresh is None:
        try:
            fresh = bool(await page.main_frame.evaluate(js("fresh.js")))
        except Error:
            return 0.0, None  # navigating: the walk itself decides what it can see
    if not fresh:
        return 0.0, None
    started = time.monotonic()
    try:
        await page.main_frame.wait_for_load_state("load", timeout=cap_s * 1000)
        left = cap_s - (time.monotonic() - started)
        if left > FIRST_QUIET_S:
            arg = {"quietMs": FIRST_QUIET_S * 1000, "capMs": left * 1000}
            async with asyncio.timeout(left + 0.25):
                if walk is None:
                    await page.main_frame.evaluate(js("first_look.js"), arg)
                else:
                    loaded = time.monotonic() - started
                    look, walked = await frames.walk_after(page, js("first_look.js"), arg, *walk)
                    # the wait is the page's quiet window, not the walk made in the same call
                    return loaded + float(look["waitedMs"]) / 1000, walked
    except (Error, TimeoutError):
        pass  # capped or navigated: snapshot what is there
    return time.monotonic() - started, None


async def take_snapshot(
    page: Page, *, version: int, max_tokens: int | None = DEFAULT_MAX_TOKENS
) -> Snapshot:
    """The snapshot alone (benchmarks, pagemem); PageSession uses capture() to keep refs."""
    snap, _ = await capture(page, version=version, max_tokens=max_tokens)
    return snap


def _number(raw_nodes: Sequence[frames.RawNode], version: int) -> tuple[tuple[Node, ...], dict]:
    nodes: list[Node] = []
    targets: dict[int, RefTarget] = {}
    for i, rn in enumerate(raw_nodes, start=1):
        d = rn.data
        path = rn.path
        list_id = d.get("list")
        in_cell = d.get("grid") is not None and d.get("col") is not None
        nodes.append(
            Node(
                ref=f"{version}:{i}",
                index=i,
                role=str(d["role"]),
                name=str(d.get("name") or ""),
                value=None if d.get("value") is None else str(d["value"]),
                states=tuple(d.get("states") or ()),
                bbox=rn.bbox,
                frame=path,
                in_viewport=rn.in_viewport,
                interactive=bool(d.get("interactive")),
                level=int(d.get("level") or 0),
                landmark=str(d.get("landmark") or ""),
                heading=str(d.get("heading") or ""),
                list_id=None if list_id is None else "/".join(map(str, (*path, list_id))),
                item=d.get("item"),
                tag=str(d.get("tag") or ""),
                full_len=int(d.get("full") or 0),
                aria=str(d.get("aria") or ""),
                cover=str(d.get("cover") or ""),
                options=str(d.get("options") or ""),
                beside=str(d.get("beside") or ""),
                place=str(d.get("place") or ""),
                grid="/".join(map(str, (*path, d["grid"]))) if in_cell else None,
                row=int(d["row"]) if in_cell and d.get("row") is not None else None,
                col=int(d["col"]) if in_cell else None,
            )
        )
        if int(d.get("id", -1)) >= 0:
            targets[i] = RefTarget(frame=rn.frame, local_id=int(d["id"]), role=str(d["role"]))
    return tuple(nodes), targets


def _stats(
    raw: frames.Collected, nodes: Sequence[Node], text: str, full: str, elapsed: float
) -> dict[str, Any]:
    """Figures for events and benchmarks; dropped-text samples never reach the prompt."""
    interactive = sum(1 for n in nodes if n.interactive)
    sections = len({(n.frame, n.landmark, n.list_id or n.heading) for n in nodes})
    return {
        "nodes": len(nodes),
        "refs": interactive,
        "interactive": interactive,
        "sections": sections,
        "frames": raw.frame_count,
        "hidden_dropped": raw.dropped_count,
        "hidden_reasons": dict(raw.dropped_reasons),
        "hidden_samples": [list(s) for s in raw.dropped_samples[:10]],
        # figures, not a budget (compact.render counted exactly where the cap decided):
        # the fast estimate, not a second o200k pass over the whole page (issue 35)
        "tokens": tokens.estimate_tokens(text),
        "tokens_full": tokens.estimate_tokens(full),
        "chars": len(text),
        "trimmed": text != full,
        "js_ms": round(raw.js_ms, 1),
        "extraction_ms": round(elapsed * 1000, 1),
        "closed_shadow_roots": raw.closed_roots,
    }
