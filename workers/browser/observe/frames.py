"""Run the snapshot walker in every frame and splice child frames into their <iframe> slots.

Cross-origin frames are reached through Playwright's per-frame execution (OOPIF aware);
closed shadow roots are registered by js/init.js (attachShadow hook) or, for declarative
ones the hook cannot see, found over CDP so the walker can descend into them: only the
elements the walker flagged as possible hosts (empty yet sized, never checked before) are
described (DOM.describeNode pierce=true), which costs nothing on pages without any; a
same-process child frame with candidates falls back to one pierced DOM.getDocument.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any
from urllib.parse import urlsplit

from playwright.async_api import BrowserContext, CDPSession, Error, Frame, Page

from workers.browser.observe import compact
from workers.browser.runtime.regions import HiddenRegionError
from workers.browser.runtime.scripts import MAIN_FRAME_GONE, js, js_with


async def install(target: BrowserContext | Page) -> None:
    """Hook attachShadow/addEventListener before page scripts run (every frame, every load)."""
    await target.add_init_script(script=js("init.js"))


@dataclass(frozen=True)
class RawNode:
    data: Mapping[str, Any]
    path: tuple[int, ...]
    frame: Frame
    bbox: tuple[float, float, float, float]
    in_viewport: bool


@dataclass
class Collected:
    main: Mapping[str, Any]
    nodes: list[RawNode] = field(default_factory=list)
    frame_count: int = 0
    dropped_count: int = 0
    dropped_reasons: dict[str, int] = field(default_factory=dict)
    dropped_samples: list[list[str]] = field(default_factory=list)
    js_ms: float = 0.0
    closed_roots: int = 0


def _walker() -> str:
    return js_with("snapshot.js", "icon_name.js", "blackout.js", "modal.js", "layout_marks.js")


@cache
def _gated_walker(gate_script: str) -> str:
    """The page fingerprint, then (unless the document is unwalked, which first waits for
    it to draw itself: snapshot.first_look) the walk, in one call (issue 35)."""
    return (
        f"(arg) => {{\nconst fp = ({gate_script})(arg.gate);\n"
        f"return {{ fp, walk: fp.fresh ? null : ({_walker()})(arg.walk) }};\n}}"
    )


def _walk_arg(version: int, hidden: tuple[str, ...]) -> dict[str, Any]:
    return {"version": version, "cutOver": compact.CUT_OVER, "hidden": list(hidden)}


async def _walk_frame(
    frame: Frame, version: int, hidden: tuple[str, ...] = ()
) -> dict[str, Any] | None:
    try:
        text = await frame.evaluate(_walker(), _walk_arg(version, hidden))
    except Error:
        return None  # frame navigated or detached mid-snapshot: it simply is not shown
    return _parsed(text)


def _parsed(text: Any) -> dict[str, Any] | None:
    try:
        result: dict[str, Any] = json.loads(text)
    except (TypeError, ValueError):
        return None  # the page replaced JSON or the walker: treat the frame as unreadable
    if result.get("badHidden"):  # fail closed: no view that could show a private region
        raise HiddenRegionError(f"private region selectors rejected: {result['badHidden']}")
    return result


@cache
def _walker_after(wait_script: str) -> str:
    """An async wait (snapshot.first_look's quiet window), then the walk, in one call."""
    return (
        f"async (arg) => {{\nconst waited = await ({wait_script})(arg.wait);\n"
        f"return {{ waited, walk: ({_walker()})(arg.walk) }};\n}}"
    )


async def walk_after(
    page: Page, wait_script: str, wait_arg: Mapping[str, Any], version: int, hidden: tuple[str, ...]
) -> tuple[Mapping[str, Any], dict[str, Any] | None]:
    """The main frame's walk right after `wait_script` resolves there (issue 35: a new
    document's first look and its walk cost one round trip, not two): what the wait
    returned, and the walk."""
    arg = {"wait": dict(wait_arg), "walk": _walk_arg(version, hidden)}
    out = await page.main_frame.evaluate(_walker_after(wait_script), arg)
    return out["waited"], _parsed(out["walk"])


@dataclass(frozen=True)
class Gated:
    """The main frame's fingerprint and, when the document was walked before, its walk."""

    fingerprint: Mapping[str, Any]
    main: dict[str, Any] | None


async def walk_gated(
    page: Page, gate_script: str, gate_arg: Mapping[str, Any], version: int, hidden: tuple[str, ...]
) -> Gated:
    """One evaluate in the main frame: the fingerprint (`gate_script`) and the walk."""
    arg = {"gate": dict(gate_arg), "walk": _walk_arg(version, hidden)}
    out = await page.main_frame.evaluate(_gated_walker(gate_script), arg)
    walk = out.get("walk")
    return Gated(out["fp"], None if walk is None else _parsed(walk))


async def _slot_of(frame: Frame) -> int | None:
    """Index snapshot.js gave this frame's <iframe> element inside its parent document."""
    try:
        element = await frame.frame_element()
        slot = await element.evaluate(js("frame_id.js"))
        await element.dispose()
    except Error:
        return None
    return slot if isinstance(slot, int) else None


async def collect(
    page: Page, version: int, hidden: tuple[str, ...] = (), main: dict[str, Any] | None = None
) -> Collected:
    """Walk the frames shown on the page, level by level (hidden iframes are never walked).
    `main`: the main frame's walk, when it was read already (walk_gated).

    When a walk flags possible declarative closed shadow hosts, they are checked over CDP
    and, if any root is found, the frames are walked again with the roots registered.
    """
    by_frame, children = await _walk_tree(page, version, hidden, main)
    flagged = [f for f, r in by_frame.items() if r.get("hostCandidates")]
    found = await register_candidate_roots(page, flagged) if flagged else 0
    if found:
        by_frame, children = await _walk_tree(page, version, hidden)
    main = by_frame.get(page.main_frame)
    if main is None:
        raise Error(MAIN_FRAME_GONE)
    out = Collected(main=main, closed_roots=found)
    vp = main["viewport"]
    top_view = (0.0, 0.0, float(vp["width"]), float(vp["height"]))
    out.nodes = list(_splice(page.main_frame, by_frame, children, (), (0.0, 0.0), top_view, out))
    return out


async def _walk_tree(
    page: Page, version: int, hidden: tuple[str, ...] = (), main: dict[str, Any] | None = None
) -> tuple[dict[Frame, dict[str, Any]], dict[tuple[Frame, int], Frame]]:
    """Main frame first, then the child frames whose <iframe> the parent actually showed."""
    by_frame: dict[Frame, dict[str, Any]] = {}
    children: dict[tuple[Frame, int], Frame] = {}
    if main is None:
        main = await _walk_frame(page.main_frame, version, hidden)
    if main is None:
        return by_frame, children
    by_frame[page.main_frame] = main
    level = [page.main_frame]
    while level:
        candidates = [
            c
            for f in level
            if by_frame[f].get("frames")
            for c in f.child_frames
            if not c.is_detached() and not c.url.startswith("chrome-error:")
        ]
        slots = await asyncio.gather(*(_slot_of(c) for c in candidates))
        shown = [(c, s) for c, s in zip(candidates, slots, strict=True) if s is not None]
        results = await asyncio.gather(*(_walk_frame(c, version, hidden) for c, _ in shown))
        level = []
        for (c, slot), result in zip(shown, results, strict=True):
            if result is not None and c.parent_frame is not None:
                by_frame[c] = result
                children[(c.parent_frame, slot)] = c
                level.append(c)
    return by_frame, children


def _splice(
    frame: Frame,
    by_frame: Mapping[Frame, Mapping[str, Any]],
    children: Mapping[tuple[Frame, int], Frame],
    path: tuple[int, ...],
    offset: tuple[float, float],
    visible: tuple[float, float, float, float] | None,
    out: Collected,
) -> Iterator[RawNode]:
    """Nodes of `frame` in document order with child frames inlined; coordinates made top-level."""
    result = by_frame[frame]
    out.frame_count += 1
    stats = result["stats"]
    out.js_ms += float(stats["ms"])
    out.dropped_count += int(stats["dropped"]["count"])
    for reason, n in stats["dropped"]["reasons"].items():
        out.dropped_reasons[reason] = out.dropped_reasons.get(reason, 0) + int(n)
    out.dropped_samples.extend(stats["dropped"]["samples"])
    slots = {int(s["k"]): s for s in result["frames"]}
    for d in result["nodes"]:
        x, y, w, h = (float(v) for v in d["bbox"])
        bbox = (x + offset[0], y + offset[1], w, h)
        if d["role"] == "iframe":
            child = children.get((frame, int(d["frame"])))
            if child is None or child not in by_frame:
                continue
            slot = slots[int(d["frame"])]
            off = (offset[0] + float(slot["offset"][0]), offset[1] + float(slot["offset"][1]))
            c = slot["clip"]
            box = (c[0] + offset[0], c[1] + offset[1], c[2] + offset[0], c[3] + offset[1])
            yield from _splice(
                child,
                by_frame,
                children,
                (*path, int(d["frame"])),
                off,
                _intersect(visible, box),
                out,
            )
            continue
        in_view = bool(d["inView"]) and visible is not None and _overlaps(visible, bbox)
        yield RawNode(d, path, frame, bbox, in_view)


def _intersect(
    a: tuple[float, float, float, float] | None, b: tuple[float, float, float, float]
) -> tuple[float, float, float, float] | None:
    if a is None:
        return None
    left, top, right, bottom = max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])
    return (left, top, right, bottom) if right > left and bottom > top else None


def _overlaps(
    box: tuple[float, float, float, float], bbox: tuple[float, float, float, float]
) -> bool:
    x, y, w, h = bbox
    return x + w > box[0] and y + h > box[1] and x < box[2] and y < box[3]


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


async def register_candidate_roots(page: Page, flagged: list[Frame]) -> int:
    """Describe only the walker's host candidates (window.__webagent.cands) in each frame."""
    if any(_same_process_child(page, f) for f in flagged):
        return await register_closed_shadow_roots(page)
    total = 0
    for frame in flagged:
        try:
            cdp = await page.context.new_cdp_session(page if frame == page.main_frame else frame)
        except Error:
            continue
        try:
            total += await _register_candidates(cdp)
        except Error:
            continue
        finally:
            await cdp.detach()
    return total


def _same_process_child(page: Page, frame: Frame) -> bool:
    return frame != page.main_frame and (
        not frame.url.startswith("http") or _origin(frame.url) == _origin(page.url)
    )


async def _register_candidates(cdp: CDPSession) -> int:
    listed = await cdp.send(
        "Runtime.evaluate", {"expression": "window.__webagent && window.__webagent.cands"}
    )
    array_id = listed.get("result", {}).get("objectId")
    if not array_id:
        return 0
    props = await cdp.send("Runtime.getProperties", {"objectId": array_id, "ownProperties": True})
    ids = [
        p["value"]["objectId"]
        for p in props.get("result", ())
        if p.get("name", "").isdigit() and "objectId" in p.get("value", {})
    ]
    described = await asyncio.gather(
        *(cdp.send("DOM.describeNode", {"objectId": i, "depth": 0, "pierce": True}) for i in ids)
    )
    found = 0
    for d in described:
        for root in d["node"].get("shadowRoots", ()):
            if root.get("shadowRootType") == "closed":
                found += await _register_root(cdp, int(root["backendNodeId"]))
    await cdp.send("Runtime.releaseObject", {"objectId": array_id})
    return found


async def _register_root(cdp: CDPSession, backend_id: int) -> int:
    obj = await cdp.send("DOM.resolveNode", {"backendNodeId": backend_id})
    object_id = obj["object"]["objectId"]
    reply = await cdp.send(
        "Runtime.callFunctionOn",
        {
            "objectId": object_id,
            "functionDeclaration": js("register_closed.js"),
            "returnByValue": True,
        },
    )
    await cdp.send("Runtime.releaseObject", {"objectId": object_id})
    return 1 if reply.get("result", {}).get("value") else 0


async def register_closed_shadow_roots(page: Page) -> int:
    """Find closed shadow roots over CDP and hand them to the walker's registry.

    One pierced DOM.getDocument on the page session covers same-process frames; frames of
    another origin (out-of-process) get their own session.
    """
    main_origin = _origin(page.url)
    targets: list[Page | Frame] = [page]
    targets += [
        f
        for f in page.frames
        if f.parent_frame is not None and f.url.startswith("http") and _origin(f.url) != main_origin
    ]
    total = 0
    for target in targets:
        try:
            cdp = await page.context.new_cdp_session(target)
        except Error:
            continue  # same-process frame: already covered by the page's pierced document
        try:
            total += await _register_in(cdp)
        except Error:
            continue
        finally:
            await cdp.detach()
    return total


async def _register_in(cdp: CDPSession) -> int:
    found = 0
    doc = await cdp.send("DOM.getDocument", {"depth": -1, "pierce": True})
    for backend_id in _closed_roots(doc["root"]):
        found += await _register_root(cdp, backend_id)
    return found


def _closed_roots(node: Mapping[str, Any]) -> Iterator[int]:
    stack = [node]
    while stack:
        n = stack.pop()
        for root in n.get("shadowRoots", ()):
            if root.get("shadowRootType") == "closed":
                yield int(root["backendNodeId"])
            stack.append(root)
        stack.extend(n.get("children", ()))
        if "contentDocument" in n:
            stack.append(n["contentDocument"])
