"""Where the content above and below the viewport is announced in the compact view (issue 7,
class 6): a boundary line where the viewport starts and ends, with a count and an example when
only trim markers stand on that side.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from workers.browser.observe.compact_lines import clip, quoted

if TYPE_CHECKING:
    from workers.browser.observe.nodes import Node

EDGE_PX = 60  # a few lines (EDGE_LINES) this close past a viewport edge need no edge line
EDGE_LINES = 3

Marks = tuple[int, int, tuple[str, str], tuple[str, str]]


def viewport_marks(nodes: Sequence[Node], height: float) -> Marks | None:
    """(first in-view index, last in-view index, above, below), class 6; each side as (bare
    boundary line, line with the count and one example name): the second is used only when
    nothing on that side is shown in detail (only trim lines say what lies there). A side
    holding only a few lines just past the edge (a page's last lines) gets no line."""
    shown = [n.index for n in nodes if n.in_viewport]
    if not shown:
        return None
    first, last = _row_edges(nodes, shown[0], shown[-1])
    above = [n for n in nodes if n.index < first and not n.in_viewport]
    below = [n for n in nodes if n.index > last and not n.in_viewport]
    if len(below) <= EDGE_LINES and all(n.bbox[1] < height + EDGE_PX for n in below):
        below = []
    if len(above) <= EDGE_LINES and all(n.bbox[1] + n.bbox[3] > -EDGE_PX for n in above):
        above = []
    return first, last, _mark("above viewport", above), _mark("below viewport", below)


def _row(n: Node) -> tuple[object, ...] | None:
    """The list item or grid row a node belongs to (None: neither)."""
    if n.list_id is not None and n.item is not None:
        return ("list", n.frame, n.list_id, n.item)
    if n.grid is not None and n.row is not None:
        return ("grid", n.frame, n.grid, n.row)
    return None


def _row_edges(nodes: Sequence[Node], first: int, last: int) -> tuple[int, int]:
    """First/last in-view index moved out to the edges of their rows: a row cut by an inner
    scroll box's edge (a day calendar's hour with two half-hour slots) keeps its lines
    together, so a viewport line falls between rows, never inside one (wave 5b)."""
    by_index = {n.index: i for i, n in enumerate(nodes)}
    i, j = by_index[first], by_index[last]
    row = _row(nodes[i])
    while row is not None and i > 0 and _row(nodes[i - 1]) == row:
        i -= 1
    row = _row(nodes[j])
    while row is not None and j + 1 < len(nodes) and _row(nodes[j + 1]) == row:
        j += 1
    return nodes[i].index, nodes[j].index


def _mark(where: str, nodes: Sequence[Node]) -> tuple[str, str]:
    if not nodes:
        return "", ""
    named = [n.name for n in nodes if n.name and (n.interactive or n.role == "heading")]
    named = named or [n.name for n in nodes if n.name]
    plain = f"[{where}]"  # the boundary; the detail lines on that side say what is there
    counted = f"[{where}: {len(nodes)} elements"
    if not named:
        return plain, counted + "]"
    return plain, f"{counted} incl. {quoted(clip(named[0], 30))}]"


_TRIM = re.compile(r"\[refs? \d+(?:-\d+)? trimmed: ")


def _detail(lines: Sequence[tuple[int, str]]) -> bool:
    """Some line is content, not a trim marker, landmark or the header."""
    return any(
        index > 0 and not _TRIM.match(text) and not text.startswith("== ") for index, text in lines
    )


def marked(lines: list[tuple[int, str]], marks: Marks | None) -> list[tuple[int, str]]:
    """The above-viewport line before the first in-view line, the below one after the last."""
    if marks is None:
        return lines
    first, last, (above, above_ex), (below, below_ex) = marks
    start = next((i for i, (index, _) in enumerate(lines) if index >= first), len(lines))
    stop = max((i for i, (index, _) in enumerate(lines) if index <= last), default=len(lines) - 1)
    scrolls = bool(lines) and lines[0][0] == 0  # the header says the page scrolls, and where
    out = list(lines)
    if below and _detail(lines[stop + 1 :]):
        out.insert(stop + 1, (last + 1, below))
    elif below and not scrolls:  # only trim lines below, in a scrolled box: say what is there
        out.insert(stop + 1, (last + 1, below_ex))
    if above and _detail(lines[:start]):
        out.insert(start, (first, above))
    elif above and not scrolls:
        out.insert(start, (first, above_ex))
    return out
