"""Bounding-box snapper (seed 000 §6.1-6.2, Algorithm 4, App. E.3): a box → a point to click.

Phase A pinpoints the box centre (first interactive element front to back) and returns the
centre when the expected label (≥ 3 characters) matches; Phase A-alt descends into
same-origin iframes with the box in iframe-local coordinates and translates the inner
element's centre back; a cross-origin iframe is flagged and, as the paper's escalation to a
frame walk, the same probe runs inside that frame. Phase B samples the 4×4 interior points of
a 5×5 grid over the box and keeps the point whose first interactive element scores highest:

    σ(e, B, ℓ) = a(R, B) · λ(e, ℓ) · χ(e, B)                                   (eq. 8)
    a = area(R ∩ B) / area(B)                                                 (eq. 9)
    λ = 𝟙[Tokens(ℓ) ⊆ TextTokens(e)]            calendar day                  (eq. 10)
        Substr(ℓ, e.text)                        dropdown / option
        JaccardWordOverlap(ℓ, e.text ∪ e.aria)   value-bearing trigger (≥ 0.7 on a shared
                                                 word of ≥ 3 characters)
        0.5 + 0.5·𝟙[ℓ ≈ e.text]                  generic; λ = 1 without a label
    χ = 1 + 2·Row(B)·𝟙[K ≥ 1]·tanh(K/2)                                        (eq. 11-12)

K and χ are `vision.chevron_count` / `vision.chevron_weight` (one definition). Ties in σ
(the same element under several grid points) go to the point nearest the box centre, so a
large DOM-silent widget such as a canvas is pressed where the box says, not at its corner.
The §6.2 prose also mentions capping the boost to within 30% of the area leader; eq. (12)'s
bound χ < 3 is the cap implemented here (Proposition 1 holds for it, see the unit tests).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Literal

from playwright.async_api import ElementHandle, Error, Frame

from workers.browser.observe.vision import Candidate, Rect, chevron_weight, label_score
from workers.browser.runtime.scripts import js

WidgetKind = Literal["calendar_day", "option", "value_trigger", "generic"]
LABEL_MIN_CHARS = 3  # Phase A label check only for |ℓ| ≥ 3
VALUE_TRIGGER_FLOOR = 0.7
_VALUE_INPUTS = frozenset({"", "text", "date", "time", "datetime-local", "month", "week",
                           "number", "search", "email", "tel", "url"})  # fmt: skip


def tokens(text: str) -> list[str]:
    return re.sub(r"[^\w\s]", " ", text.lower()).split()


def widget_kind(d: dict[str, Any]) -> WidgetKind:
    """Which λ rule applies to a candidate described by js/snap.js."""
    role, tag, text = d.get("role", ""), d.get("tag", ""), str(d.get("text", "")).strip()
    if role == "gridcell" or (d.get("calendar") and re.fullmatch(r"\d{1,2}", text)):
        return "calendar_day"
    if role in ("option", "menuitem", "menuitemradio", "menuitemcheckbox") or tag == "option":
        return "option"
    if d.get("list") and role not in ("combobox", "textbox"):
        return "option"
    if role == "combobox" or tag == "select" or (tag == "input" and d.get("type") in _VALUE_INPUTS):
        return "value_trigger"
    if d.get("haspopup") and text:
        return "value_trigger"
    return "generic"


def jaccard(a: str, b: str) -> float:
    sa, sb = set(tokens(a)), set(tokens(b))
    return len(sa & sb) / len(sa | sb) if sa and sb else 0.0


def label_factor(kind: WidgetKind, label: str, text: str, aria: str = "") -> float:
    """λ(e, ℓ) of eq. (10) by widget type; 1 when no label is expected."""
    want = tokens(label)
    if not want:
        return 1.0
    if kind == "calendar_day":
        return 1.0 if set(want) <= set(tokens(text)) else 0.0
    if kind == "option":
        return 1.0 if " ".join(want) in " ".join(tokens(text)) else 0.0
    if kind == "value_trigger":
        both = f"{text} {aria}"
        shared = set(want) & set(tokens(both))
        score = jaccard(label, both)
        return max(score, VALUE_TRIGGER_FLOOR) if any(len(w) >= 3 for w in shared) else score
    return label_score(Candidate(ref="", rect=Rect(0, 0, 0, 0), name=text), label)


def area_factor(rect: Rect, box: Rect) -> float:
    """a(R, B) = area(R ∩ B) / area(B); a point box counts as inside when it lies in R."""
    if box.area <= 0:
        return 1.0 if rect.contains_point(*box.center) else 0.0
    return rect.intersection(box) / box.area


def candidate(d: dict[str, Any]) -> Candidate:
    """The vision.Candidate view of a js/snap.js descriptor (for K and χ)."""
    expanded = d.get("expanded")
    states = (
        frozenset()
        if expanded is None
        else frozenset({"expanded" if expanded == "true" else "collapsed"})
    )
    return Candidate(
        ref=str(d.get("xpath", "")),
        rect=Rect(*d["rect"]),
        role=str(d.get("role", "")),
        name=str(d.get("text", "")),
        states=states,
        aria_label=str(d.get("aria", "")),
        haspopup=bool(d.get("haspopup")),
    )


def score(d: dict[str, Any], box: Rect, label: str) -> float:
    """σ = a·λ·χ for one described candidate."""
    c = candidate(d)
    lam = label_factor(widget_kind(d), label, c.name, c.aria_label)
    return area_factor(c.rect, box) * lam * chevron_weight(c, box)


def label_matches(d: dict[str, Any], label: str) -> bool:
    """Phase A LabelMatch: the expected label is the element's text or aria-label."""
    want = " ".join(tokens(label))
    have = [" ".join(tokens(str(d.get(k, "")))) for k in ("text", "aria")]
    return bool(want) and any(h and (want == h or want in h) for h in have)


@dataclass(frozen=True)
class Snap:
    """Where to press: viewport point, the element there, and how it was found."""

    x: float
    y: float
    phase: str  # "A", "A-alt", "B"
    xpath: str
    index: int  # position in window.__webagentSnapHits of `frame`
    frame: Frame
    score: float = 0.0
    cross_origin: bool = False

    async def element(self) -> ElementHandle | None:
        handle = await self.frame.evaluate_handle(js("lookup.js"), ["snap_hit", self.index])
        return handle.as_element()


def choose(
    probe: dict[str, Any], box: Rect, label: str
) -> tuple[str, int, float, float, float] | None:
    """Algorithm 4's decision over one probe: (phase, hit index, x, y, σ) or None."""
    cands: list[dict[str, Any]] = probe["candidates"]
    centre = probe.get("centre")
    if centre is not None and len(label.strip()) >= LABEL_MIN_CHARS:
        d = cands[centre]
        if label_matches(d, label):
            if d.get("frames"):
                cx, cy = Rect(*d["rect"]).center
                return "A-alt", centre, cx, cy, 1.0
            return "A", centre, *box.center, 1.0
    best: tuple[str, int, float, float, float] | None = None
    best_dist = math.inf
    for px, py, hit in probe["grid"]:
        if hit is None:
            continue
        sigma = score(cands[hit], box, label)
        dist = math.hypot(px - box.center[0], py - box.center[1])
        if sigma > 0 and (
            best is None or sigma > best[4] or (sigma == best[4] and dist < best_dist)
        ):
            best, best_dist = ("B", hit, px, py, sigma), dist
    return best


async def _child(frame: Frame, index: int) -> Frame | None:
    """The child Frame of the index-th <iframe>/<frame> element of `frame`'s document."""
    for child in frame.child_frames:
        try:
            owner = await child.frame_element()
            i = await owner.evaluate(js("frame_index.js"))
        except Error:
            continue
        if i == index:
            return child
    return None


async def snap(frame: Frame, box: Rect, label: str = "") -> Snap | None:
    """Algorithm 4 on `frame` (the page's main frame for vision boxes); None on failure."""
    probe = await frame.evaluate(js("snap.js"), {"box": [box.x0, box.y0, box.x1, box.y1]})
    cross = probe.get("crossOrigin")
    if cross is not None:  # Phase A-alt on a cross-origin frame: the escalated frame walk
        inner = await _child(frame, int(cross["index"]))
        if inner is not None:
            ox, oy = cross["offset"]
            shifted = Rect(box.x0 - ox, box.y0 - oy, box.x1 - ox, box.y1 - oy)
            found = await snap(inner, shifted, label)
            if found is not None:
                return Snap(
                    found.x + ox, found.y + oy, "A-alt", found.xpath, found.index,
                    found.frame, found.score, cross_origin=True,
                )  # fmt: skip
    chosen = choose(probe, box, label)
    if chosen is None:
        return None
    phase, hit, x, y, sigma = chosen
    xp = str(probe["candidates"][hit].get("xpath", ""))
    return Snap(x, y, phase, xp, hit, frame, sigma)
