"""Refs across re-renders (issue 7 class 7; seed 003 §5.1.1 versioned refs, §5.4 safe
failure). A widget that re-renders (a calendar's "Prev", a list refreshed by a click)
detaches its elements, so the refs of a batch planned on one snapshot go stale one after
another. An element that is recognisably the same in a fresh snapshot (same role, same name,
about the same place in the document) is re-resolved and acted on; otherwise the failure is
compact: no copy of the snapshot, one sentence per stale version, candidate refs listed.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from playwright.async_api import ElementHandle

from workers.agent.protocols import Action, ToolResult
from workers.browser.observe.refs import RefError, RefTarget, parse_ref, resolve
from workers.browser.observe.snapshot import Node, Snapshot

if TYPE_CHECKING:
    from workers.browser.observe.perception import Perception

SAME_PLACE_PX = 48.0  # document-coordinate distance under which a re-render is "the same"


def _doc_centre(node: Node, snap: Snapshot) -> tuple[float, float]:
    x, y, w, h = node.bbox
    return x + w / 2 + snap.viewport.scroll_x, y + h / 2 + snap.viewport.scroll_y


def same_element(old: Node, old_snap: Snapshot, fresh: Snapshot) -> Node | None:
    """The one node of `fresh` with old's role and name at about old's place, else None."""
    ox, oy = _doc_centre(old, old_snap)
    near = []
    for n in fresh.nodes:
        if not n.interactive or n.role != old.role or n.name != old.name:
            continue
        nx, ny = _doc_centre(n, fresh)
        if math.hypot(nx - ox, ny - oy) <= SAME_PLACE_PX:
            near.append(n)
    return near[0] if len(near) == 1 else None


def _old_node(view: Perception, ref: object) -> tuple[Node, Snapshot] | None:
    try:
        version, _ = parse_ref(ref)
    except RefError:
        return None
    snap = view.recent(version)
    node = snap.node(f"{version}:{parse_ref(ref)[1]}") if snap else None
    return (node, snap) if node is not None and snap is not None else None


async def reresolve(
    view: Perception, ref: object, notes: list[str]
) -> tuple[ElementHandle, RefTarget] | None:
    """Find the element a stale ref named in the current page, or None; the reroute is
    explained in `notes` (the tool result carries it)."""
    found = _old_node(view, ref)
    if found is None:
        return None
    old, old_snap = found
    current_ok = (
        view.last is not None
        and view.refs is not None
        and view.last.version != old_snap.version
        and not view.navigated
    )
    fp = await view.fingerprint()
    still = view.unchanged(fp)  # nothing moved since the current snapshot: no new one needed
    order = (False,) if current_ok and still else (False, True) if current_ok else (True,)
    for fresh_needed in order:
        fresh = view.last
        if fresh_needed:
            fresh = await view.snapshot()
            view.snap_fp = fp  # the next observe() keeps this version while the page holds
        assert fresh is not None
        if fresh.url != old_snap.url:
            return None
        node = same_element(old, old_snap, fresh)
        if node is None:
            continue
        try:
            el, target = await resolve(view.refs, node.ref)
        except RefError:
            continue
        notes.append(
            f"{old.ref} re-rendered; acted on {node.ref} (same {old.role} {old.name!r}, same place)"
        )
        return el, target
    return None


async def stale_failure(view: Perception, exc: RefError, action: Action) -> ToolResult:
    """Refuse compactly: the current version, candidates with the same role and name, and
    a full sentence only the first time a given version is reported."""
    found = _old_node(view, action.args.get("ref"))
    fresh = view.last if view.last is not None and view.refs is not None else await view.snapshot()
    alternatives: list[str] = []
    if found is not None:
        old = found[0]
        alternatives = [
            f"{n.ref} {n.role} {n.name!r}"
            for n in fresh.nodes
            if n.interactive and n.role == old.role and n.name == old.name
        ][:3]
    source = found[1].version if found is not None else None
    if source is not None and view.stale_told == source:
        reason = f"{action.args.get('ref')} is stale too (page at snapshot {fresh.version})."
    else:
        reason = (
            f"{exc.reason} It could not be matched to one element with the same role, name "
            f"and place; the page is now at snapshot {fresh.version}: use refs from the next "
            "observation."
        )
        view.stale_told = source
    data: dict[str, Any] = {"version": fresh.version}
    return ToolResult(
        success=False, error=exc.code, reason=reason, alternatives=tuple(alternatives), data=data
    )
