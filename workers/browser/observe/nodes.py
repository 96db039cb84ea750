"""The snapshot's data: one Node per line, the open Modal, the Viewport (snapshot.py builds
them from js/snapshot.js; compact.py, pagemem.py and the views render them)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Node:
    """One line of the snapshot: a text block, a heading or an interactive element."""

    ref: str  # "v:n" (snapshot version : index); shown to the model for interactive nodes
    index: int  # n: document order across frames, starting at 1
    role: str  # ARIA-like role: button, link, textbox, checkbox, heading, text, ...
    name: str  # accessible name (text for role "text")
    value: str | None
    states: tuple[str, ...]  # checked, expanded, selected, disabled, required, invalid, covered ...
    bbox: tuple[float, float, float, float]  # x, y, w, h in top-level viewport CSS pixels
    frame: tuple[int, ...]  # iframe path from the main frame, () for the main frame
    in_viewport: bool
    interactive: bool
    level: int = 0  # heading level, else 0
    landmark: str = ""  # landmark ancestry, e.g. 'main > form "Checkout"'
    heading: str = ""  # nearest heading above this node in document order
    list_id: str | None = None  # group of repeated siblings (same tag+class), frame-qualified
    item: int | None = None  # 1-based item number inside list_id
    tag: str = ""
    full_len: int = 0  # length of the whole text when `name` was cut short (0: not cut)
    grid: str | None = None  # table/grid the node's cell belongs to, frame-qualified
    row: int | None = None  # 1-based row of that cell
    col: int | None = None  # 1-based column of that cell
    aria: str = ""  # an aria-label that differs from the visible text (the name), capped
    cover: str = ""  # with state covered: what covers it, short ('"Cookie banner"', 'dialog')
    options: str = ""  # a select's first options, " | "-joined, with the count when cut
    beside: str = ""  # a glyph-named control: the short texts on its row ("Adults 2")
    place: str = ""  # wave 5: a repeated control's grid position ("row 2 col 3, x -1"), or
    # the rows a block laid over a list sits on ('on row "9am"')


@dataclass(frozen=True)
class Modal:
    """The top-most open modal dialog of the main document (js/modal.js, seed 001 A.4)."""

    label: str
    role: str
    how: str  # "dialog:modal", "aria-modal" or "covering"
    box: tuple[float, float, float, float]  # x, y, w, h in viewport CSS pixels

    @classmethod
    def from_js(cls, raw: Mapping[str, Any] | None) -> Modal | None:
        if not raw:
            return None
        x, y, w, h = (float(v) for v in raw["box"])
        return cls(
            str(raw.get("label") or ""), str(raw.get("role") or ""), str(raw["how"]), (x, y, w, h)
        )


@dataclass(frozen=True)
class Viewport:
    width: float
    height: float
    scroll_x: float
    scroll_y: float
    doc_width: float
    doc_height: float
