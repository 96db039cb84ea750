"""Scripted decisions for MiniWoB++ pointer tasks (issue 8): sliders by keyboard, sortable
lists, SVG shapes, text selection and the resize corner by `drag` from a point that
`dom_search` reported. Prompt only, like tests/support/miniwob_policies.py."""

from __future__ import annotations

import re
from typing import Any

from tests.support.llm_server import Reply, tool_reply
from tests.support.miniwob_text import NODE_LINE, all_hits, centre, find, give_up, search_hits
from tests.support.policies import last_tool_results, latest_observation

MAX_KEYS_PER_CALL = 25  # bulk holds 30 actions: focus + up to 25 key presses


_SLIDER_VALUE = re.compile(r'value="(-?\d+)')


def _slider_values(page: str) -> list[tuple[str, int]]:
    """(handle ref, value) per jQuery UI slider: a `slider value="N (lo..hi)"` line, or an
    unnamed button followed by the value the page prints."""
    found = []
    lines = [*page.splitlines(), ""]
    for i, line in enumerate(lines[:-1]):
        m = NODE_LINE.match(line.strip())
        shown = _SLIDER_VALUE.search(line) if m and m["role"] == "slider" else None
        value = lines[i + 1].strip()
        if shown:
            found.append((m["ref"], int(shown.group(1))))
        elif m and m["role"] == "button" and not m["name"] and re.fullmatch(r"-?\d+", value):
            found.append((m["ref"], int(value)))
    return found


def _set_sliders(targets: list[int], page: str) -> Reply:
    sliders = _slider_values(page)
    submit = find(page, ("button",), "Submit")
    if len(sliders) != len(targets) or submit is None:
        return give_up("sliders not found")
    for (ref, value), want in zip(sliders, targets, strict=True):
        if value != want:
            key = "ArrowUp" if want > value else "ArrowDown"
            presses = [{"tool": "press_key", "key": key}] * min(
                abs(want - value), MAX_KEYS_PER_CALL
            )
            return tool_reply(("bulk", {"actions": [{"tool": "focus", "ref": ref}, *presses]}))
    return tool_reply(("click", {"ref": submit}))


def use_slider(task: str, page: str) -> Reply:
    m = re.search(r"Select (-?\d+) with the slider", task)
    return _set_sliders([int(m.group(1))], page) if m else give_up("no target value")


def use_slider_2(task: str, page: str) -> Reply:
    m = re.search(r"combination \[([-\d,]+)\]", task)
    return _set_sliders([int(v) for v in m.group(1).split(",")], page) if m else give_up("?")


_ORDINAL = re.compile(r"to the (\d+)(?:st|nd|rd|th) position")
_GRID_SLOTS = {
    f"to the {row} {col}".replace("center center", "center"): 3 * r + c + 1
    for r, row in enumerate(("top", "center", "bottom"))
    for c, col in enumerate(("left", "center", "right"))
}


def _target_slot(where: str, ix: int, n: int) -> int:
    """1-based slot the task names: list positions and the 3x3 grid's names."""
    moves = {"to the top": 1, "to the bottom": n, "up by one position": ix - 1}
    moves |= {"down by one position": ix + 1, "up by one": ix - 3, "down by one": ix + 3}
    moves |= {"left by one": ix - 1, "right by one": ix + 1, **_GRID_SLOTS}
    ordinal = _ORDINAL.match(where)
    return int(ordinal.group(1)) if ordinal else moves.get(where, ix)


def _drop_point(hits: list[dict[str, Any]], ix: int, t: int) -> tuple[float, float]:
    """Where to release so a jQuery UI sortable puts item ix at slot t. A vertical list puts
    it after the item under the pointer when moving down, before it when moving up. A grid
    ("floating" items) puts it after the item when the move went right or down, else before,
    and only once the pointer is in the half of the item the horizontal move points to."""
    src, dst = hits[ix - 1], hits[t - 1]
    (sx, sy), (tx, ty) = centre(src), centre(dst)
    if all(h["x"] == hits[0]["x"] for h in hits):  # a vertical list
        return tx, ty + dst["h"] * (0.3 if t > ix else -0.3)
    after, before = (t if t > ix else t - 1), (t if t < ix else t + 1)
    for slot, wants_after in ((after, True), (before, False)):
        if not 1 <= slot <= len(hits) or slot == ix:
            continue
        item = hits[slot - 1]
        cx, cy = centre(item)
        if (cx > sx or cy > sy) != wants_after:
            continue
        if cx != sx:  # a horizontal move: the near half for left, the far half for right
            return item["x"] + item["w"] * (0.75 if cx > sx else 0.25), cy
        return cx, item["y"] + item["h"] * (0.75 if cy > sy else 0.25)
    return tx, ty


def drag_item(task: str, request: dict[str, Any]) -> Reply:
    """drag-items(-grid): find the items, then drag one past the middle of its target slot."""
    hits = search_hits(request)
    if hits is None:
        return tool_reply(("dom_search", {"selector": "li"}))
    m = re.match(r"Drag (.+?) ((?:to the|up by|down by|left by|right by) .+)\.$", task)
    names = [h["text"] for h in hits]
    if m is None or m.group(1) not in names:
        return give_up("item not found")
    ix = names.index(m.group(1)) + 1
    target = _target_slot(m.group(2), ix, len(names))
    sx, sy = centre(hits[ix - 1])
    x, y = _drop_point(hits, ix, target)
    return tool_reply(("drag", {"from_x": sx, "from_y": sy, "x": x, "y": y}))


def sort_numbers(task: str, request: dict[str, Any]) -> Reply:
    """drag-sort-numbers: one drag per turn, each followed by a fresh dom_search."""
    search = ("dom_search", {"selector": "li"})
    hits = search_hits(request)
    if hits is None:
        return tool_reply(search)
    try:
        values = [int(h["text"]) for h in hits]
    except ValueError:
        return give_up("the list items are not numbers")
    want = sorted(values)
    if values == want:
        submit = find(latest_observation(request), ("button",), "Submit")
        return tool_reply(("click", {"ref": submit})) if submit else give_up("no Submit")
    slot = next(i for i, (v, w) in enumerate(zip(values, want, strict=True)) if v != w)
    moving = values.index(want[slot], slot) + 1
    sx, sy = centre(hits[moving - 1])
    x, y = _drop_point(hits, moving, slot + 1)
    return tool_reply(("drag", {"from_x": sx, "from_y": sy, "x": x, "y": y}), search)


def drag_box(task: str, request: dict[str, Any]) -> Reply:
    """drag-box: the two jQuery UI draggables; the small one onto the large one's centre."""
    boxes = search_hits(request)
    submit = find(latest_observation(request), ("button",), "Submit")
    if boxes is None:
        return tool_reply(("dom_search", {"selector": "#draggable > div"}))
    if len(boxes) != 2 or submit is None:
        return give_up("two boxes and Submit expected")
    small, large = sorted(boxes, key=lambda h: h["w"] * h["h"])
    (sx, sy), (lx, ly) = centre(small), centre(large)
    drag = {"from_x": sx, "from_y": sy, "x": lx, "y": ly}
    return tool_reply(("drag", drag), ("click", {"ref": submit}))


_SHAPE_SELECTORS = {
    "rectangles": "svg rect:not(#shape-container)",
    "circles": "svg circle",
    "triangles": "svg polygon",
}


def drag_shapes(task: str, request: dict[str, Any]) -> Reply:
    """drag-shapes: every shape of the asked kind dragged into the container, then Submit."""
    m = re.search(r"Drag all (\w+) into the black box", task)
    selector = _SHAPE_SELECTORS.get(m.group(1)) if m else None
    found = all_hits(request)
    submit = find(latest_observation(request), ("button",), "Submit")
    if selector is None or submit is None:
        return give_up("unknown shape kind")
    results = last_tool_results(request)
    if len(found) == 1 and len(results) == 2 and results[1].get("error") == "text_not_found":
        found.append([])  # no shape of that kind on the board: nothing to move
    if len(found) != 2:
        box = ("dom_search", {"selector": "#shape-container"})
        return tool_reply(box, ("dom_search", {"selector": selector, "limit": 20}))
    (box_hit, *_), shapes = found
    bx, by = centre(box_hit)
    drags: list[dict[str, Any]] = []
    for shape in shapes:
        sx, sy = centre(shape)
        drags.append({"tool": "drag", "from_x": sx, "from_y": sy, "x": bx, "y": by})
    return tool_reply(("bulk", {"actions": [*drags, {"tool": "click", "ref": submit}]}))


_NTH = re.compile(r"in the (\d+)(?:st|nd|rd|th) paragraph")


def highlight(task: str, request: dict[str, Any]) -> Reply:
    """highlight-text(-2): select a paragraph by dragging across it, then Submit."""
    hits = search_hits(request)
    submit = find(latest_observation(request), ("button",), "Submit")
    nth = _NTH.search(task)
    if hits is None:
        selector = "#area p" if nth else "#randomText"
        return tool_reply(("dom_search", {"selector": selector, "limit": 10}))
    index = int(nth.group(1)) - 1 if nth else 0
    if not hits or submit is None or index >= len(hits):
        return give_up("no paragraph or Submit")
    p = hits[index]
    drag = {"from_x": p["x"] + 1, "from_y": p["y"] + 3, "x": p["x"] + p["w"] - 1}
    drag["y"] = p["y"] + p["h"] - 3
    return tool_reply(("drag", drag), ("click", {"ref": submit}))


def resize(task: str, request: dict[str, Any]) -> Reply:
    """resize-textarea: drag the native resize corner along the named dimension."""
    m = re.search(r"so that the (width|height) is (larger|smaller)", task)
    hits = search_hits(request)
    submit = find(latest_observation(request), ("button",), "Submit")
    if m is None or submit is None:
        return give_up("no dimension or Submit")
    if hits is None:
        return tool_reply(("dom_search", {"selector": "textarea"}))
    t = hits[0]
    step = 25 if m.group(2) == "larger" else -15
    dx, dy = (step, 0) if m.group(1) == "width" else (0, step)
    drag = {"from_x": t["x"] + t["w"] - 3, "from_y": t["y"] + t["h"] - 3, "dx": dx, "dy": dy}
    return tool_reply(("drag", drag), ("click", {"ref": submit}))


_SHIFT = {"up": (0, -30), "down": (0, 30), "left": (-30, 0), "right": (30, 0)}


def drag_shape(task: str, request: dict[str, Any]) -> Reply:
    """drag-single-shape / drag-circle: the SVG shape has no ref; dom_search finds it."""
    hits = search_hits(request)
    if hits is None:
        return tool_reply(("dom_search", {"selector": "svg circle, svg rect, svg polygon"}))
    m = re.search(r"\b(up|down|left|right)\b", task)
    submit = find(latest_observation(request), ("button",), "Submit")
    if m is None or not hits or submit is None:
        return give_up("no shape or no Submit")
    (sx, sy), (dx, dy) = centre(hits[0]), _SHIFT[m.group(1)]
    drag = {"from_x": sx, "from_y": sy, "dx": dx, "dy": dy}
    return tool_reply(("drag", drag), ("click", {"ref": submit}))
