"""Reaching an item of a menu that is open because the pointer is over it (issue 31 item 4).

A humanized click sweeps the cursor along a curve from where it is to the target. When the
target sits in a submenu the pointer holds open (a flyout beside "Electronics", opened on
hover), that curve cuts across the neighbouring items ("Books", "Toys"): their submenus open,
the flyout closes, and the press lands on something else (a relay run clicked "Kites" when it
meant "Drones", then filed the right move as a dead end). `corridor` asks the page for a path
that stays over the hover root (js/hover_path.js): straight, across-then-down or
down-then-across; `segments` walks it in straight steps, with no arc, overshoot or wobble
that could leave the menu.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from playwright.async_api import ElementHandle, Error

from workers.browser.runtime.scripts import js

Point = tuple[float, float]
STEP_PX = 12.0  # one mouseMoved per this many pixels along a segment
STEP_MS = 8.0


@dataclass(frozen=True)
class Corridor:
    """Where the pointer is (None: the page saw no move; keep the caller's) and the corners
    of a path to the target over the menu it holds open (None: any path will do)."""

    mouse: Point | None
    via: tuple[Point, ...] | None


async def corridor(el: ElementHandle, target: Point, last: Point) -> Corridor:
    """One call in the target's document: the pointer, read as verify.pointer reads it, and
    the path from it to `target` (`last`: where the caller last put the pointer)."""
    try:
        found = await el.evaluate(js("hover_path.js"), [*target, *last])
    except Error:
        return Corridor(None, None)
    mouse = found.get("mouse")
    via = found.get("via")
    return Corridor(
        (float(mouse[0]), float(mouse[1])) if mouse else None,
        None if via is None else tuple((float(x), float(y)) for x, y in via),
    )


def segments(start: Point, corners: Sequence[Point], end: Point) -> list[Point]:
    """Points every STEP_PX along the straight segments start -> corners -> end."""
    out: list[Point] = []
    points = [start, *corners, end]
    for (x0, y0), (x1, y1) in itertools.pairwise(points):
        n = max(1, math.ceil(math.hypot(x1 - x0, y1 - y0) / STEP_PX))
        out += [(x0 + (x1 - x0) * k / n, y0 + (y1 - y0) * k / n) for k in range(1, n + 1)]
    return out
