"""Seed 002's screenshot difference for DOM-silent widgets and whole-viewport checks (keys,
pointer moves), with the focused element's focus ring left out (relay 2026-11-27 finding 2).
"""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

from playwright.async_api import FloatRect

PIXEL_SIZE = (256, 256)
RING_OUT_PX = 6  # a focus ring (outline, box-shadow) is drawn up to this far outside the box
RING_IN_PX = 3  # ... and this far inside it

Ring = tuple[float, float, float, float]  # outer and inner box of a focus ring, fractions


def pixel_difference(
    before: bytes, after: bytes, *, peak: bool = False, ring: tuple[Ring, Ring] | None = None
) -> float:
    """Seed 002: both images as 256×256 grayscale, mean absolute difference / 255. `peak`
    (the whole viewport, where a moved slider thumb is a tiny share of the pixels): the
    largest difference of one cell instead of the mean. `ring` (focus_ring): the band around
    the focused element, whose focus ring is no effect of the action (relay 2026-11-27
    finding 2: Enter on a dead button drew only its ring), is left out; its inside still
    counts (a focused canvas redrawn). numpy and PIL load here, on the first comparison:
    not on every process start."""
    if before == after:
        return 0.0
    import numpy as np
    from PIL import Image

    def gray(png: bytes) -> Any:
        with Image.open(io.BytesIO(png)) as img:
            plain = np.asarray(img.convert("L"), dtype=np.uint8).copy()
        if ring is not None:
            h, w = plain.shape
            (ox0, oy0, ox1, oy1), (ix0, iy0, ix1, iy1) = (
                (int(a * w), int(b * h), int(c * w), int(d * h)) for a, b, c, d in ring
            )
            inside = plain[iy0:iy1, ix0:ix1].copy()
            plain[max(oy0, 0) : max(oy1, 0), max(ox0, 0) : max(ox1, 0)] = 0
            plain[iy0:iy1, ix0:ix1] = inside
        small = Image.fromarray(plain).resize(PIXEL_SIZE)
        return np.asarray(small, dtype=np.float32)

    delta = np.abs(gray(before) - gray(after))
    return float((delta.max() if peak else delta.mean()) / 255.0)


def focus_ring(box: Mapping[str, Any] | None, clip: FloatRect) -> tuple[Ring, Ring] | None:
    """The focus ring's band around `box` (viewport x, y, w, h) as fractions of `clip`."""
    if not box or clip["width"] <= 0 or clip["height"] <= 0:
        return None
    x, y = float(box["x"]) - clip["x"], float(box["y"]) - clip["y"]
    w, h = float(box["w"]), float(box["h"])
    cw, ch = clip["width"], clip["height"]

    def frac(x0: float, y0: float, x1: float, y1: float) -> Ring:
        return (x0 / cw, y0 / ch, x1 / cw, y1 / ch)

    o, i = RING_OUT_PX, min(RING_IN_PX, w / 2, h / 2)
    return frac(x - o, y - o, x + w + o, y + h + o), frac(x + i, y + i, x + w - i, y + h - i)
