"""Vision boxes (seed 000 §4.3, §6.1-6.2): parse, split compound rows, enrich with the DOM.

Pure functions only: the vision model's reply text goes in, frozen `VisionBox`es in CSS
pixels come out, matched to snapshot refs and annotated with what the model cannot see.
The LLM call, anchors and prefetch live in `vision_tier.py`.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any

SCALE = 1000.0  # boxes are [ymin, xmin, ymax, xmax] normalised to 0-1000 (seed 000 §4.3)
ROW_MIN_W, ROW_MIN_H = 60.0, 24.0  # Row(B) predicate, seed 000 eq. (11)
CHEVRON_GLYPHS = frozenset("▼▶◀▲▽▷◁△▾▸◂▴▿▹◃▵⌄⌃˅˄")
EXPAND_WORDS = ("expand", "collapse", "toggle", "more")
ACTIVE_STATES = frozenset({"checked", "pressed", "selected", "active", "current"})


@dataclass(frozen=True)
class Rect:
    """Axis-aligned box in CSS pixels of the viewport."""

    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def width(self) -> float:
        return max(0.0, self.x1 - self.x0)

    @property
    def height(self) -> float:
        return max(0.0, self.y1 - self.y0)

    @property
    def area(self) -> float:
        return self.width * self.height

    @property
    def center(self) -> tuple[float, float]:
        return ((self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2)

    def intersection(self, other: Rect) -> float:
        w = min(self.x1, other.x1) - max(self.x0, other.x0)
        h = min(self.y1, other.y1) - max(self.y0, other.y0)
        return w * h if w > 0 and h > 0 else 0.0

    def iou(self, other: Rect) -> float:
        inter = self.intersection(other)
        union = self.area + other.area - inter
        return inter / union if union > 0 else 0.0

    def contains_point(self, x: float, y: float) -> bool:
        return self.x0 <= x <= self.x1 and self.y0 <= y <= self.y1

    @classmethod
    def xywh(cls, x: float, y: float, w: float, h: float) -> Rect:
        return cls(x, y, x + w, y + h)


@dataclass(frozen=True)
class Candidate:
    """The DOM side of matching: one interactive snapshot node and its viewport rect."""

    ref: str
    rect: Rect
    role: str = ""
    name: str = ""
    states: frozenset[str] = frozenset()
    aria_label: str = ""
    labelledby: str = ""
    haspopup: bool = False

    @property
    def has_expanded(self) -> bool:
        return bool(self.states & {"expanded", "collapsed"})


@dataclass(frozen=True)
class VisionBox:
    """One [Vn] region: model fields plus the DOM metadata vector m of seed 000 eq. (1)."""

    index: int
    label: str
    rect: Rect
    confidence: float = 1.0
    intent_relevant: bool = False
    ref: str | None = None
    expanded: bool | None = None
    active: bool = False
    labelledby: str = ""
    parent_expand: int | None = None
    part: str = ""  # "chip" or "chevron" after a compound-row split


@dataclass(frozen=True)
class VisionParse:
    boxes: tuple[VisionBox, ...]
    page_type: str = ""
    dropped: int = 0


# ---------------------------------------------------------------- parsing the reply

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
_VREF = re.compile(r"\[?\s*V\s*(\d+)\s*\]?", re.I)
_LINE = re.compile(
    r"\[?V(?P<n>\d+)\]?[\s:.\-]*(?P<label>[^\[\(\n]*?)\s*[\[\(]\s*(?P<a>-?[\d.]+)[,\s]+"
    r"(?P<b>-?[\d.]+)[,\s]+(?P<c>-?[\d.]+)[,\s]+(?P<d>-?[\d.]+)\s*[\]\)]"
)
_BOX_KEYS = ("box_2d", "bbox", "box", "bounding_box", "coordinates", "coords")
_LABEL_KEYS = ("label", "name", "text", "description", "element")
_LIST_KEYS = ("boxes", "elements", "items", "bboxes", "regions", "results")


def _json_candidates(text: str) -> Iterable[str]:
    yield from _FENCE.findall(text)
    for opener, closer in (("{", "}"), ("[", "]")):
        start, end = text.find(opener), text.rfind(closer)
        if 0 <= start < end:
            yield text[start : end + 1]


def _loads_lenient(blob: str) -> Any:
    for attempt in (blob, re.sub(r",\s*([\]}])", r"\1", blob)):
        try:
            return json.loads(attempt)
        except json.JSONDecodeError:
            continue
    return None


def _coords(value: Any) -> list[float] | None:
    if isinstance(value, dict):
        keys = ("ymin", "xmin", "ymax", "xmax")
        value = [value.get(k) for k in keys] if all(k in value for k in keys) else None
    if isinstance(value, str):
        value = re.findall(r"-?\d+(?:\.\d+)?", value)
    if not isinstance(value, list | tuple) or len(value) < 4:
        return None
    try:
        return [float(v) for v in value[:4]]
    except (TypeError, ValueError):
        return None


def _entry(raw: Any) -> tuple[int | None, str, list[float], float, bool] | None:
    if isinstance(raw, list | tuple):
        nums = _coords(list(raw[:4]))
        label = str(raw[4]) if len(raw) > 4 else ""
        return (None, label, nums, 1.0, False) if nums else None
    if not isinstance(raw, dict):
        return None
    nums = next((c for k in _BOX_KEYS if (c := _coords(raw.get(k))) is not None), None)
    if nums is None:
        return None
    label = next((str(raw[k]) for k in _LABEL_KEYS if raw.get(k)), "")
    index = None
    for key in ("id", "index", "vision_index", "ref", "mark"):
        if key in raw and (m := _VREF.search(str(raw[key]))):
            index = int(m.group(1))
            break
    if index is None and (m := _VREF.match(label.strip())):
        index = int(m.group(1))
    label = _VREF.sub("", label, count=1).strip(" :-") if _VREF.match(label.strip()) else label
    try:
        conf_raw: Any = raw.get("confidence", raw.get("score", 1.0))
        conf = float(conf_raw)
    except (TypeError, ValueError):
        conf = 1.0
    relevant = bool(raw.get("intent_relevant", False))
    return (index, label.strip(), nums, min(max(conf, 0.0), 1.0), relevant)


def _entries(data: Any) -> tuple[list[Any], str]:
    if isinstance(data, dict):
        page_type = str(data.get("page_type", "") or "")
        for key in _LIST_KEYS:
            if isinstance(data.get(key), list):
                return data[key], page_type
        return ([data] if any(k in data for k in _BOX_KEYS) else []), page_type
    return (data if isinstance(data, list) else []), ""


def _to_rect(nums: list[float], width: float, height: float) -> Rect | None:
    """[ymin,xmin,ymax,xmax] in 0-1000 (or 0-1 fractions) → CSS px, clamped and ordered."""
    scale = 1.0 if max(abs(n) for n in nums) <= 1.0 else SCALE
    ymin, xmin, ymax, xmax = (min(max(n / scale, 0.0), 1.0) for n in nums)
    ymin, ymax = sorted((ymin, ymax))
    xmin, xmax = sorted((xmin, xmax))
    rect = Rect(xmin * width, ymin * height, xmax * width, ymax * height)
    return rect if rect.width >= 2 and rect.height >= 2 else None


def parse_reply(text: str, *, width: float, height: float) -> VisionParse:
    """Robustly read boxes from a vision reply: JSON (fenced, wrapped, trailing commas) or
    `[Vn] label [ymin, xmin, ymax, xmax]` lines. Indices are kept when given and unique."""
    raw_entries: list[Any] = []
    page_type = ""
    for blob in _json_candidates(text):
        data = _loads_lenient(blob)
        if data is not None:
            raw_entries, page_type = _entries(data)
            if raw_entries:
                break
    parsed = [e for r in raw_entries if (e := _entry(r)) is not None]
    if not parsed:
        for m in _LINE.finditer(text):
            nums = [float(m.group(g)) for g in "abcd"]
            parsed.append((int(m.group("n")), m.group("label").strip(" :-"), nums, 1.0, False))
        if not page_type and (pm := re.search(r"page_type\W+(\w+)", text)):
            page_type = pm.group(1)
    boxes: list[VisionBox] = []
    used: set[int] = set()
    dropped = len(raw_entries) - len(parsed) if raw_entries else 0
    for index, label, nums, conf, relevant in parsed:
        rect = _to_rect(nums, width, height)
        if rect is None:
            dropped += 1
            continue
        if index is None or index in used or index < 1:
            index = max(used | {len(boxes)}) + 1
        used.add(index)
        boxes.append(VisionBox(index, label, rect, conf, relevant))
    return VisionParse(tuple(boxes), page_type.strip().lower(), dropped)


# ---------------------------------------------------------------- snapper scoring (§6.1, E.3)


def chevron_count(c: Candidate) -> int:
    """K(e,B) of seed 000 eq. (11): expand-control indicators on a candidate."""
    label = (c.aria_label or c.name).lower()
    return (
        int(c.has_expanded)
        + int(c.haspopup)
        + int(any(ch in CHEVRON_GLYPHS for ch in c.name))
        + int(any(w in label for w in EXPAND_WORDS))
    )


def is_row(rect: Rect) -> bool:
    return rect.width >= ROW_MIN_W and rect.height >= ROW_MIN_H


def chevron_weight(c: Candidate, box: Rect) -> float:
    """χ(e,B) = 1 + 2·Row(B)·[K≥1]·tanh(K/2), seed 000 eq. (12)."""
    k = chevron_count(c)
    return 1.0 + 2.0 * math.tanh(k / 2) if is_row(box) and k >= 1 else 1.0


def _norm(text: str) -> str:
    return " ".join(re.sub(r"[^\w\s]", " ", text.lower()).split())


def label_score(c: Candidate, label: str) -> float:
    """λ generic rule of eq. (10): 0.5 + 0.5·[label ≈ text]; 1 without an expected label."""
    want = _norm(label)
    if not want:
        return 1.0
    have = _norm(f"{c.name} {c.aria_label} {c.labelledby}")
    return 1.0 if want and (want in have or (have and have in want)) else 0.5


def snap_score(c: Candidate, box: Rect, label: str = "") -> float:
    """σ(e,B,ℓ) = a(R,B)·λ(e,ℓ)·χ(e,B), seed 000 eq. (8)-(9)."""
    if box.area <= 0:
        return 0.0
    return c.rect.intersection(box) / box.area * label_score(c, label) * chevron_weight(c, box)


def snap(box: Rect, candidates: Sequence[Candidate], label: str = "") -> Candidate | None:
    """argmax σ over candidates intersecting the box (eq. 7); None when nothing overlaps."""
    scored = [(snap_score(c, box, label), c) for c in candidates]
    best = max(scored, key=lambda sc: sc[0], default=(0.0, None))
    return best[1] if best[0] > 0 else None


# ---------------------------------------------------------------- compound rows (§4.3, §6.2)


def _chevron_inside(box: VisionBox, candidates: Sequence[Candidate]) -> Candidate | None:
    """A small expand control sitting at the left or right edge of a row-shaped box."""
    if not is_row(box.rect):
        return None
    best: Candidate | None = None
    for c in candidates:
        cx, cy = c.rect.center
        if chevron_count(c) < 1 or not box.rect.contains_point(cx, cy):
            continue
        if c.rect.intersection(box.rect) > 0.5 * box.rect.area:
            continue  # the control is the whole row: nothing to split
        left_edge = cx < box.rect.x0 + 0.35 * box.rect.width
        right_edge = cx > box.rect.x1 - 0.35 * box.rect.width
        if (left_edge or right_edge) and (best is None or c.rect.area < best.rect.area):
            best = c
    return best


def split_compound(box: VisionBox, candidates: Sequence[Candidate]) -> tuple[VisionBox, ...]:
    """Split a chip+chevron box into the chip and the chevron (seed 000 §4.3, §6.2)."""
    chevron = _chevron_inside(box, candidates)
    if chevron is None:
        return (box,)
    r, c = box.rect, chevron.rect
    on_right = c.center[0] >= r.center[0]
    chip = Rect(r.x0, r.y0, max(r.x0 + 1, c.x0), r.y1) if on_right else Rect(c.x1, r.y0, r.x1, r.y1)
    chev = Rect(max(c.x0, r.x0), max(c.y0, r.y0), min(c.x1, r.x1), min(c.y1, r.y1))
    if chip.width < 4 or chev.area <= 0:
        return (box,)
    name = box.label or chevron.name
    return (
        replace(box, rect=chip, part="chip"),
        replace(box, label=f"{name} (expand)", rect=chev, part="chevron", ref=chevron.ref),
    )


# ---------------------------------------------------------------- DOM enrichment (§4.3)

MATCH_MIN_IOU = 0.2


def match(box: VisionBox, candidates: Sequence[Candidate]) -> Candidate | None:
    """The snapshot node a box stands for: best IoU·λ, else the snapper's σ (seed 000 §6.1)."""
    best, best_score = None, 0.0
    for c in candidates:
        iou = c.rect.iou(box.rect)
        if iou >= MATCH_MIN_IOU and iou * label_score(c, box.label) > best_score:
            best, best_score = c, iou * label_score(c, box.label)
    if best is not None:
        return best
    inside = [c for c in candidates if box.rect.contains_point(*c.rect.center)]
    return snap(box.rect, inside, box.label)


def _parent_expand(box: VisionBox, boxes: Sequence[VisionBox]) -> int | None:
    """Index of the open expand control this box belongs to: one that contains it, else the
    nearest open control above it that overlaps it horizontally (a disclosure header)."""
    best: VisionBox | None = None
    for other in boxes:
        if other.index == box.index or other.expanded is not True:
            continue
        r, o = box.rect, other.rect
        if o.contains_point(*r.center) and o.area > r.area:
            return other.index
        overlaps_x = min(r.x1, o.x1) - max(r.x0, o.x0) > 0
        if overlaps_x and o.y1 <= r.y0 + 1 and (best is None or o.y1 > best.rect.y1):
            best = other
    return best.index if best is not None else None


def enrich(
    boxes: Sequence[VisionBox], candidates: Sequence[Candidate], *, split: bool = True
) -> tuple[VisionBox, ...]:
    """Split compound rows, match refs, add aria-expanded / active / labelledby / parent
    expand index, then renumber [V1..Vn] in reading order so the LLM sees a clean list."""
    parts: list[VisionBox] = []
    for box in boxes:
        parts.extend(split_compound(box, candidates) if split else (box,))
    by_ref = {c.ref: c for c in candidates}
    out: list[VisionBox] = []
    for box in parts:
        c = by_ref.get(box.ref) if box.ref else match(box, candidates)
        if c is None:
            out.append(box)
            continue
        expanded = True if "expanded" in c.states else False if "collapsed" in c.states else None
        out.append(
            replace(
                box,
                ref=c.ref,
                expanded=expanded,
                active=bool(c.states & ACTIVE_STATES),
                labelledby=c.labelledby,
                label=box.label or c.name,
            )
        )
    out.sort(key=lambda b: (round(b.rect.y0 / 8), b.rect.x0))
    numbered = [replace(b, index=i) for i, b in enumerate(out, start=1)]
    return tuple(replace(b, parent_expand=_parent_expand(b, numbered)) for b in numbered)


def render_boxes(boxes: Sequence[VisionBox]) -> str:
    """Worker-facing lines, subgoal-relevant first (seed 000 §4.3 'bbox emphasis')."""
    lines = []
    for b in sorted(boxes, key=lambda b: (not b.intent_relevant, b.index)):
        meta = [f"ref={b.ref}"] if b.ref else []
        if b.expanded is not None:
            meta.append("expanded" if b.expanded else "collapsed")
        if b.active:
            meta.append("active")
        if b.labelledby and b.labelledby != b.label:
            meta.append(f'labelledby="{b.labelledby}"')
        if b.parent_expand is not None:
            meta.append(f"in=V{b.parent_expand}")
        tail = f" ({', '.join(meta)})" if meta else ""
        lines.append(f"[V{b.index}] {b.label}{tail}")
    return "\n".join(lines)


def missing_labels(boxes: Sequence[VisionBox], expected: Iterable[str]) -> tuple[str, ...]:
    """Expected labels no box carries: the trigger for a coverage pass (seed 000 §4.3)."""
    have = [_norm(f"{b.label} {b.labelledby}") for b in boxes]
    return tuple(e for e in expected if _norm(e) and not any(_norm(e) in h for h in have))
