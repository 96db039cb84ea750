"""Dual-channel Set-of-Mark (seed 002): the snapshot's refs as numbered tags on a screenshot.

Channel 1 draws a tag per in-view interactive ref over the page; channel 2 sets
`data-agent-id="<ref>"` on the same elements (every frame, through the ref table), so a
vision model's "3:12" and the automation layer's locator name one element. Both are removed
after the capture. `anchors()` reuses the overlay for the vision tier's dashed [Vn] boxes.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Literal

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page

from workers.browser.refs import RefTable
from workers.browser.snapshot import Node, Snapshot


def _script() -> str:
    return resources.files("workers.browser").joinpath("js/som.js").read_text("utf-8")


_SCRIPT = _script()
MIN_SIDE_PX = 5.0  # seed 002: marks need width > 5 and height > 5


class SomError(RuntimeError):
    """Browser fault: the overlay could not be drawn or the screenshot failed."""


@dataclass(frozen=True)
class Mark:
    label: str
    box: tuple[float, float, float, float]  # x, y, w, h in viewport CSS pixels


def marks_for(snapshot: Snapshot) -> list[tuple[Node, Mark]]:
    """In-view interactive nodes big enough to tag, labelled with their ref."""
    out = []
    for n in snapshot.nodes:
        x, y, w, h = n.bbox
        if n.interactive and n.in_viewport and w > MIN_SIDE_PX and h > MIN_SIDE_PX:
            out.append((n, Mark(n.ref, (x, y, w, h))))
    return out


async def _tag(refs: RefTable, nodes: Sequence[Node]) -> int:
    by_frame: dict[Frame, list[tuple[int, str]]] = defaultdict(list)
    for n in nodes:
        target = refs.targets.get(n.index)
        if target is not None:
            by_frame[target.frame].append((target.local_id, n.ref))
    tagged = 0
    for frame, marks in by_frame.items():
        try:
            tagged += int(
                await frame.evaluate(
                    _SCRIPT, {"op": "tag", "version": refs.version, "marks": marks}
                )
            )
        except PlaywrightError:
            continue  # a detached frame loses its tags, the rest still count
    return tagged


async def clear(page: Page) -> None:
    """Remove overlay and data-agent-id attributes from every frame."""
    for frame in page.frames:
        try:
            await frame.evaluate(_SCRIPT, {"op": "clear"})
        except PlaywrightError:
            continue


async def draw(
    page: Page, marks: Sequence[Mark], *, style: Literal["tags", "anchors"] = "tags"
) -> None:
    payload = [{"label": m.label, "box": list(m.box)} for m in marks]
    try:
        await page.evaluate(_SCRIPT, {"op": "draw", "style": style, "marks": payload})
    except PlaywrightError as exc:
        raise SomError(f"cannot draw the Set-of-Mark overlay: {exc}") from exc


async def shoot(page: Page, *, jpeg: bool, quality: int) -> bytes:
    try:
        if jpeg:
            return await page.screenshot(type="jpeg", quality=quality)
        return await page.screenshot(type="png")
    except PlaywrightError as exc:
        raise SomError(f"screenshot failed: {exc}") from exc


async def annotate(
    page: Page,
    snapshot: Snapshot,
    refs: RefTable | None = None,
    *,
    jpeg: bool = True,
    quality: int = 70,
) -> bytes:
    """Screenshot with the in-view refs drawn as tags; with `refs`, every interactive ref
    (in view or not) carries data-agent-id during the capture. Page state is restored after."""
    pairs = marks_for(snapshot)
    try:
        if refs is not None:
            await _tag(refs, [n for n in snapshot.nodes if n.interactive])
        await draw(page, [m for _, m in pairs])
        return await shoot(page, jpeg=jpeg, quality=quality)
    finally:
        await clear(page)


async def with_anchors(
    page: Page, anchors: Sequence[Mark], *, jpeg: bool = True, quality: int = 70
) -> bytes:
    """Screenshot with the previous vision pass's boxes as dashed [Vn] anchors (§4.3)."""
    try:
        if anchors:
            await draw(page, anchors, style="anchors")
        return await shoot(page, jpeg=jpeg, quality=quality)
    finally:
        if anchors:
            await clear(page)
