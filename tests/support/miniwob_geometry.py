"""Scripted decisions for MiniWoB++ tasks on drawings: a point placed by geometry read from
the page (circle-center, find-midpoint, bisect-angle, right-angle), a stroke through a dot
(draw-line). Like tests/support/miniwob_policies.py they read only the prompt; positions come
from `dom_search` hits (viewport boxes of the SVG shapes), the point goes in with `click_at`.
"""

from __future__ import annotations

import math
import re
from typing import Any

from tests.support.llm_server import Reply, tool_reply
from tests.support.miniwob_text import all_hits, centre, find, give_up, hit_lists
from tests.support.policies import latest_observation

Point = tuple[float, float]
ARM = 30.0  # how far from the vertex a placed point goes, in CSS pixels


def _search(*selectors: str) -> Reply:
    return tool_reply(*(("dom_search", {"selector": s, "limit": 10}) for s in selectors))


def _place(point: Point, request: dict[str, Any]) -> Reply:
    submit = find(latest_observation(request), ("button",), "Submit")
    if submit is None:
        return give_up("no Submit")
    x, y = round(point[0], 1), round(point[1], 1)
    return tool_reply(("click_at", {"x": x, "y": y}), ("click", {"ref": submit}))


def circle_center(task: str, request: dict[str, Any]) -> Reply:
    """circle-center: the centre of the circle's box."""
    found = all_hits(request)
    if not found:
        return _search("svg circle")
    return _place(centre(found[0][0]), request) if found[0] else give_up("no circle")


def find_midpoint(task: str, request: dict[str, Any]) -> Reply:
    """find-midpoint: halfway between the two black dots."""
    found = all_hits(request)
    if not found:
        return _search("svg circle.black-circle")
    if len(found[0]) != 2:
        return give_up("two dots expected")
    (ax, ay), (bx, by) = (centre(h) for h in found[0])
    return _place(((ax + bx) / 2, (ay + by) / 2), request)


def _unit(v: Point) -> Point:
    n = math.hypot(*v) or 1.0
    return v[0] / n, v[1] / n


def _vertex_and_arms(request: dict[str, Any]) -> tuple[Point, list[Point]] | None:
    """The blue vertex and the unit vectors towards each black dot."""
    found = all_hits(request)
    if len(found) < 2 or len(found[0]) != 1 or not found[1]:
        return None
    vertex = centre(found[0][0])
    arms = [_unit((cx - vertex[0], cy - vertex[1])) for cx, cy in map(centre, found[1])]
    return vertex, arms


def _along(vertex: Point, direction: Point, board: dict[str, Any] | None) -> Point:
    """A point ARM pixels from the vertex along `direction`, pulled in to stay on the board."""
    length = ARM
    if board is not None:
        for _ in range(6):
            x, y = vertex[0] + direction[0] * length, vertex[1] + direction[1] * length
            inside = board["x"] + 2 < x < board["x"] + board["w"] - 2
            if inside and board["y"] + 2 < y < board["y"] + board["h"] - 2:
                break
            length /= 2
    return vertex[0] + direction[0] * length, vertex[1] + direction[1] * length


def _board(request: dict[str, Any]) -> dict[str, Any] | None:
    found = all_hits(request)
    return found[2][0] if len(found) > 2 and found[2] else None


def bisect_angle(task: str, request: dict[str, Any]) -> Reply:
    """bisect-angle: along the sum of the unit vectors of the two arms."""
    got = _vertex_and_arms(request)
    if got is None:
        return _search("svg .init-blue", "svg .init-black", "svg")
    vertex, arms = got
    if len(arms) != 2:
        return give_up("two arms expected")
    (ax, ay), (bx, by) = arms
    return _place(_along(vertex, _unit((ax + bx, ay + by)), _board(request)), request)


def right_angle(task: str, request: dict[str, Any]) -> Reply:
    """right-angle: perpendicular to the one arm, on whichever side has room."""
    got = _vertex_and_arms(request)
    if got is None:
        return _search("svg #init-blue", "svg #init-black", "svg")
    vertex, arms = got
    (ax, ay), board = arms[0], _board(request)
    options = [_along(vertex, d, board) for d in ((-ay, ax), (ay, -ax))]
    far = max(options, key=lambda p: math.hypot(p[0] - vertex[0], p[1] - vertex[1]))
    return _place(far, request)


_LINE = re.compile(r"Draw a (horizontal|vertical) line that runs through the dot")


def draw_line(task: str, request: dict[str, Any]) -> Reply:
    """draw-line: one straight drag across the dot (up to 40 px each side, kept on the
    drawing board, where the stroke must start), then Submit."""
    m = _LINE.match(task)
    found = all_hits(request)
    submit = find(latest_observation(request), ("button",), "Submit")
    if m is None or submit is None:
        return give_up("unknown line or no Submit")
    if len(found) < 2 or not found[0] or not found[1]:
        return _search("svg circle", "svg")
    (x, y), board = centre(found[0][0]), found[1][0]
    if m.group(1) == "horizontal":
        lo, hi = board["x"] + 3, board["x"] + board["w"] - 3
        ends = {"from_x": max(lo, x - 40), "x": min(hi, x + 40), "from_y": y, "y": y}
    else:
        lo, hi = board["y"] + 3, board["y"] + board["h"] - 3
        ends = {"from_y": max(lo, y - 40), "y": min(hi, y + 40), "from_x": x, "x": x}
    return tool_reply(("drag", {**ends, "steps": 20}), ("click", {"ref": submit}))


# CSS colour keywords (the names use-colorwheel asks for), as any model knows them.
CSS_COLOURS = {
    "black": "000000", "white": "ffffff", "aqua": "00ffff", "blue": "0000ff",
    "gray": "808080", "green": "008000", "lime": "00ff00", "maroon": "800000",
    "navy": "000080", "olive": "808000", "purple": "800080", "red": "ff0000",
    "silver": "c0c0c0", "teal": "008080", "yellow": "ffff00", "pink": "ffc0cb",
    "magenta": "ff00ff", "gold": "ffd700", "orange": "ffa500",
}  # fmt: skip
_COLOUR = re.compile(r"Select (?:(\w+)|the following color \[colour: #([0-9a-f]{6})\]) with the")


def colour_picker(task: str, page: str) -> Reply:
    """use-colorwheel(-2): the picker's field takes the colour as hex text; Enter closes the
    picker, then Submit."""
    m = _COLOUR.match(task)
    hexa = (CSS_COLOURS.get(m.group(1) or "") or m.group(2)) if m else None
    box, submit = find(page, ("textbox",)), find(page, ("button",), "Submit")
    if hexa is None or box is None or submit is None:
        return give_up("unknown colour or no field")
    typed = {"tool": "type", "ref": box, "text": hexa.upper(), "submit": True}
    return tool_reply(("bulk", {"actions": [typed, {"tool": "click", "ref": submit}]}))


_SORT = re.compile(r"Drag all (\w+) (?:shapes )?into the left box, and everything else into")
_KINDS = {"rectangles": "rect", "circles": "circle", "triangles": "polygon"}
_SHAPES = ('rect:not([fill="none"])', "circle", "polygon")


def _sort_selectors(what: str) -> tuple[str, str]:
    """CSS selectors of the shapes for the left box and of all the others."""
    if what in _KINDS:
        tag = _KINDS[what]
        left = next(s for s in _SHAPES if s.startswith(tag))
        return f"svg {left}", ", ".join(f"svg {s}" for s in _SHAPES if s != left)
    colour = f'[fill="{what}"]'
    return f"svg {colour}", ", ".join(f"svg {s}:not({colour})" for s in _SHAPES)


def sort_shapes(task: str, request: dict[str, Any]) -> Reply:
    """drag-shapes-2: read both boxes and both groups of shapes, drag each shape onto its
    box's centre, then Submit."""
    m = _SORT.match(task)
    submit = find(latest_observation(request), ("button",), "Submit")
    if m is None or submit is None:
        return give_up("unknown sorting or no Submit")
    left, rest = _sort_selectors(m.group(1))
    found = hit_lists(request)
    if len(found) != 3 or None in found:
        boxes = {"selector": 'svg rect[fill="none"]'}
        return tool_reply(
            ("dom_search", boxes),
            *(("dom_search", {"selector": s, "limit": 20}) for s in (left, rest)),
        )
    boxes, to_left, to_right = found
    if boxes is None or len(boxes) != 2 or to_left is None or to_right is None:
        return give_up("two boxes expected")
    targets = [centre(b) for b in sorted(boxes, key=lambda b: b["x"])]
    drags = [
        {"tool": "drag", "from_x": sx, "from_y": sy, "x": tx, "y": ty}
        for shapes, (tx, ty) in zip((to_left, to_right), targets, strict=True)
        for sx, sy in map(centre, shapes)
    ]
    return tool_reply(("bulk", {"actions": [*drags, {"tool": "click", "ref": submit}]}))


_EVENT = re.compile(
    r'Create a (?:(\d+) mins|([\d.]+) hours?) event named "(.+)", between (\d+)(AM|PM) and'
)


def _half_hour_index(hour: int, half: str) -> int:
    """`8AM` -> hh-16 (the calendar's half-hour rows start at 12am = hh-0)."""
    return 2 * (hour % 12 + (12 if half == "PM" else 0))


def _free_start(events: list[dict[str, Any]], slots: list[dict[str, Any]], lo: int, n: int) -> int:
    """First row >= lo whose n rows no existing event covers (events sit on top of the rows
    and would take the press)."""

    def covered(slot: dict[str, Any]) -> bool:
        top, bottom = slot["y"], slot["y"] + slot["h"]
        return any(e["y"] < bottom - 1 and e["y"] + e["h"] > top + 1 for e in events)

    for start in range(lo, lo + 8 - n + 1):
        if not any(covered(slots[i]) for i in range(start, start + n)):
            return start
    return -1


def daily_calendar(task: str, request: dict[str, Any]) -> Reply:
    """daily-calendar: drag down the free half-hour rows of the window, name the event,
    Create."""
    m = _EVENT.match(task)
    page = latest_observation(request)
    if m is None:
        return give_up("unknown event")
    name_box, create = find(page, ("textbox",), "Event name"), find(page, ("button",), "Create")
    if name_box and create:
        typed = {"tool": "type", "ref": name_box, "text": m.group(3)}
        return tool_reply(("bulk", {"actions": [typed, {"tool": "click", "ref": create}]}))
    found = hit_lists(request)
    if len(found) != 2 or found[0] is None or not found[1]:
        rows = ("dom_search", {"selector": ".half-hour", "limit": 50})
        return tool_reply(("dom_search", {"selector": ".event", "limit": 10}), rows)
    rows = int(m.group(1)) // 30 if m.group(1) else int(float(m.group(2)) * 2)
    start = _free_start(found[0], found[1], _half_hour_index(int(m.group(4)), m.group(5)), rows)
    first = find(page, ("button",), f"half-hour hh-{start}")
    last = find(page, ("button",), f"half-hour hh-{start + rows - 1}")
    if start < 0 or first is None or last is None:
        return give_up("no free rows in the window")
    return tool_reply(("drag", {"ref": first, "to_ref": last}))
