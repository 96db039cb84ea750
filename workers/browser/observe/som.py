"""Dual-channel Set-of-Mark (seed 002): the snapshot's refs as numbered tags on a screenshot.

Channel 1 draws a tag per in-view interactive ref over the page; channel 2 sets
`data-agent-id="<ref>"` on the same elements (every frame, through the ref table), so a
vision model's "3:12" and the automation layer's locator name one element. Both are removed
after the capture. `anchors()` reuses the overlay for the vision tier's dashed [Vn] boxes.

`observation_image()` is the Worker's image channel (seed 002 loop: overlay, then a JPEG of at
most 1024 px on the long side, quality 70): the viewport is cropped to the box that holds the
visible content, scaled by Chromium itself (CDP clip scale, no image library), and each tag
shows the element number n of ref `v:n`, so tag 12 in the image is ref 3:12 in the text.
Unlike seed 002's yellow-filled boxes the tags are red outlines only, so colour swatches,
shades and charts keep their true colours under the marks.
"""

from __future__ import annotations

import base64
import contextlib
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Frame, Page

from workers.browser.observe.refs import RefTable
from workers.browser.observe.snapshot import Node, Snapshot
from workers.browser.runtime import secret_boxes
from workers.browser.runtime.scripts import js


def _script() -> str:
    return js("som.js")


_SCRIPT = _script()
MIN_SIDE_PX = 5.0  # seed 002: marks need width > 5 and height > 5
MAX_SIDE_PX = 1024  # seed 002: screenshot 1024 px max on the long side
JPEG_QUALITY = 70  # seed 002
MAX_UPSCALE = 2.0  # a small content box is enlarged at most 2x so its tags stay legible
CROP_PAD_PX = 16.0
TAG_PX = 16.0  # room a tag takes beside its box (js/som.js draws it 15 px above or beside)

Box = tuple[float, float, float, float]  # x, y, w, h in viewport CSS pixels


class SomError(RuntimeError):
    """Browser fault: the overlay could not be drawn or the screenshot failed."""


@dataclass(frozen=True)
class Mark:
    label: str
    box: tuple[float, float, float, float]  # x, y, w, h in viewport CSS pixels


@dataclass(frozen=True)
class SomImage:
    """One Set-of-Mark screenshot: tag `labels[i]` is drawn on ref `refs[i]`."""

    jpeg: bytes
    version: int
    labels: tuple[str, ...]
    refs: tuple[str, ...]
    region: Box  # the part of the viewport the image shows
    scale: float  # image pixels per CSS pixel


def marks_for(snapshot: Snapshot, *, short: bool = False) -> list[tuple[Node, Mark]]:
    """In-view interactive nodes big enough to tag, labelled with their ref (or, `short`,
    with the element number n of ref v:n)."""
    out = []
    for n in snapshot.nodes:
        x, y, w, h = n.bbox
        if n.interactive and n.in_viewport and w > MIN_SIDE_PX and h > MIN_SIDE_PX:
            out.append((n, Mark(str(n.index) if short else n.ref, (x, y, w, h))))
    return out


def crop_region(content: Box, width: float, height: float, pad: float = CROP_PAD_PX) -> Box:
    """The content box plus a margin, inside the viewport; the whole viewport if empty."""
    x, y, w, h = content
    if w < 1 or h < 1:
        return (0.0, 0.0, width, height)
    x0, y0 = max(0.0, math.floor(x - pad)), max(0.0, math.floor(y - pad))
    x1, y1 = min(width, math.ceil(x + w + pad)), min(height, math.ceil(y + h + pad))
    return (x0, y0, x1 - x0, y1 - y0)


def covering(content: Box, boxes: Sequence[Box], tag_px: float = TAG_PX) -> Box:
    """The content box grown to hold every tagged box and the tag drawn beside it (issue 26
    item 6: a crop that left tagged elements out)."""
    x0, y0, w, h = content
    x1, y1 = x0 + w, y0 + h
    if w < 1 or h < 1:
        x0, y0, x1, y1 = math.inf, math.inf, -math.inf, -math.inf
    for bx, by, bw, bh in boxes:
        x0, y0 = min(x0, bx - tag_px), min(y0, by - tag_px)
        x1, y1 = max(x1, bx + bw + tag_px), max(y1, by + bh + tag_px)
    if x1 <= x0 or y1 <= y0:
        return content
    return (x0, y0, x1 - x0, y1 - y0)


def fit_scale(
    width: float, height: float, max_side: int, max_upscale: float = MAX_UPSCALE
) -> float:
    """Scale that brings the long side to `max_side`, enlarging small boxes at most 2x."""
    long_side = max(width, height, 1.0)
    return min(max_side / long_side, max_upscale)


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
    page: Page,
    marks: Sequence[Mark],
    *,
    style: Literal["tags", "outline", "anchors"] = "tags",
) -> None:
    payload = [{"label": m.label, "box": list(m.box)} for m in marks]
    try:
        await page.evaluate(_SCRIPT, {"op": "draw", "style": style, "marks": payload})
    except PlaywrightError as exc:
        raise SomError(f"cannot draw the Set-of-Mark overlay: {exc}") from exc


async def shoot(page: Page, *, jpeg: bool, quality: int) -> bytes:
    try:
        await secret_boxes.paint(page)  # secret-bearing elements are black (secret_boxes.py)
        if jpeg:
            return await page.screenshot(type="jpeg", quality=quality)
        return await page.screenshot(type="png")
    except PlaywrightError as exc:
        raise SomError(f"screenshot failed: {exc}") from exc


async def content_box(page: Page) -> Box:
    """Viewport box holding the visible content (js/som.js op "content")."""
    try:
        x, y, w, h = await page.evaluate(_SCRIPT, {"op": "content"})
    except PlaywrightError as exc:
        raise SomError(f"cannot measure the page content: {exc}") from exc
    return (float(x), float(y), float(w), float(h))


async def capture(page: Page, region: Box, *, scale: float, quality: int = JPEG_QUALITY) -> bytes:
    """JPEG of a viewport region, rendered at `scale` by Chromium (CDP clip scale)."""
    try:
        cdp = await page.context.new_cdp_session(page)
    except PlaywrightError as exc:
        raise SomError(f"screenshot failed: {exc}") from exc
    try:
        await secret_boxes.paint(page)  # secret-bearing elements are black (secret_boxes.py)
        metrics = await cdp.send("Page.getLayoutMetrics")
        view = metrics["cssVisualViewport"]
        x, y, w, h = region
        clip = {"x": view["pageX"] + x, "y": view["pageY"] + y, "width": w, "height": h}
        shot = await cdp.send(
            "Page.captureScreenshot",
            {"format": "jpeg", "quality": quality, "clip": {**clip, "scale": scale}},
        )
        return base64.b64decode(shot["data"])
    except PlaywrightError as exc:
        raise SomError(f"screenshot failed: {exc}") from exc
    finally:
        with contextlib.suppress(PlaywrightError):  # the page closed meanwhile
            await cdp.detach()


async def observation_image(
    page: Page,
    snapshot: Snapshot,
    refs: RefTable | None = None,
    *,
    max_side: int = MAX_SIDE_PX,
    quality: int = JPEG_QUALITY,
) -> SomImage:
    """The Worker's Set-of-Mark screenshot of `snapshot`: content crop, short tags."""
    vp, size = snapshot.viewport, page.viewport_size
    width = vp.width or float(size["width"] if size else 1280)
    height = vp.height or float(size["height"] if size else 800)
    pairs = marks_for(snapshot, short=True)
    try:
        if refs is not None:
            await _tag(refs, [n for n, _ in pairs])
        await draw(page, [m for _, m in pairs], style="outline")  # no fill: colours stay true
        content = covering(await content_box(page), [m.box for _, m in pairs])
        region = crop_region(content, width, height)
        scale = fit_scale(region[2], region[3], max_side)
        jpeg = await capture(page, region, scale=scale, quality=quality)
    finally:
        await clear(page)
    labels = tuple(m.label for _, m in pairs)
    return SomImage(jpeg, snapshot.version, labels, tuple(n.ref for n, _ in pairs), region, scale)


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
