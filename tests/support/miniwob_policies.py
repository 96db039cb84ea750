"""Scripted "models" for MiniWoB++ tests: they read ONLY the prompt, like a real model.

A policy sees the chat request the agent sent: it takes the instruction from the <task>
block and the page from the last <page_content> block, finds refs by role and accessible
name in the snapshot text, and answers with tool calls. It never touches the browser.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.support.llm_server import Reply, text_reply, tool_reply
from tests.support.miniwob_composite import (
    book_flight,
    choose_date,
    email_inbox,
    search_engine,
    social_media,
    social_media_many,
)
from tests.support.miniwob_geometry import (
    bisect_angle,
    circle_center,
    colour_picker,
    daily_calendar,
    draw_line,
    find_midpoint,
    right_angle,
    sort_shapes,
)
from tests.support.miniwob_text import (
    NODE_LINE,
    all_hits,
    centre,
    find,
    give_up,
    instruction,
    nodes,
    offered_options,
    quoted,
    quoted_all,
    search_hits,
)
from tests.support.policies import last_tool_results, latest_observation


def _click_named(roles: tuple[str, ...]) -> Callable[[str, str], Reply]:
    def solve(task: str, page: str) -> Reply:
        name = quoted(task)
        ref = find(page, roles, name) if name else None
        return tool_reply(("click", {"ref": ref})) if ref else give_up(f"no {roles[0]} {name!r}")

    return solve


def _enter_text(task: str, page: str) -> Reply:
    text = quoted(task)
    box = find(page, ("textbox",))
    submit = find(page, ("button",), "Submit")
    if text is None or box is None or submit is None:
        return give_up("no text field or Submit button")
    return tool_reply(("type", {"ref": box, "text": text}), ("click", {"ref": submit}))


# Pointer tasks the tool layer makes reachable (issue 8): sliders by keyboard, sortable
# lists and SVG shapes by `drag` from a point that `dom_search` reported.
MAX_KEYS_PER_CALL = 25  # bulk holds 30 actions: focus + up to 25 key presses


def _slider_values(page: str) -> list[tuple[str, int]]:
    """(handle ref, shown value) per jQuery UI slider: an unnamed button, then its value."""
    found = []
    lines = page.splitlines()
    for i, line in enumerate(lines[:-1]):
        m = NODE_LINE.match(line.strip())
        value = lines[i + 1].strip()
        if m and m["role"] == "button" and not m["name"] and re.fullmatch(r"-?\d+", value):
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


def _use_slider(task: str, page: str) -> Reply:
    m = re.search(r"Select (-?\d+) with the slider", task)
    return _set_sliders([int(m.group(1))], page) if m else give_up("no target value")


def _use_slider_2(task: str, page: str) -> Reply:
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


def _drag_item(task: str, request: dict[str, Any]) -> Reply:
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


def _sort_numbers(task: str, request: dict[str, Any]) -> Reply:
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


def _drag_box(task: str, request: dict[str, Any]) -> Reply:
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


def _drag_shapes(task: str, request: dict[str, Any]) -> Reply:
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


def _highlight(task: str, request: dict[str, Any]) -> Reply:
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


def _resize(task: str, request: dict[str, Any]) -> Reply:
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


def _drag_shape(task: str, request: dict[str, Any]) -> Reply:
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


# Element-level tasks whose decisions follow from the utterance and the page (issue 8's
# "action layer never the reason" check): one turn each unless the page must change first.


def _login(task: str, page: str) -> Reply:
    values = quoted_all(task)
    user, pw = find(page, ("textbox",), "Username"), find(page, ("textbox",), "Password")
    login = find(page, ("button",), "Login")
    if len(values) != 2 or None in (user, pw, login):
        return give_up("login form not found")
    return tool_reply(
        (
            "bulk",
            {
                "actions": [
                    {"tool": "type", "ref": user, "text": values[0]},
                    {"tool": "type", "ref": pw, "text": values[1], "secret": True},
                    {"tool": "click", "ref": login},
                ]
            },
        )
    )


def _passwords(task: str, page: str) -> Reply:
    values = quoted_all(task)
    boxes = [el.ref for el in nodes(page) if el.role == "textbox"]
    submit = find(page, ("button",), "Submit")
    if len(values) != 1 or len(boxes) != 2 or submit is None:
        return give_up("two password fields expected")
    steps = [{"tool": "type", "ref": b, "text": values[0], "secret": True} for b in boxes]
    return tool_reply(("bulk", {"actions": [*steps, {"tool": "click", "ref": submit}]}))


def _choose_list(task: str, page: str) -> Reply:
    m = re.match(r"Select (.+) from the list and click Submit\.$", task)
    box, submit = find(page, ("combobox", "listbox")), find(page, ("button",), "Submit")
    if m is None or box is None or submit is None:
        return give_up("no list")
    return tool_reply(
        ("select_option", {"ref": box, "values": [m.group(1)]}), ("click", {"ref": submit})
    )


def _tick(task: str, page: str) -> Reply:
    m = re.match(r"Select (.*?) and click Submit\.$", task)
    submit = find(page, ("button",), "Submit")
    if m is None or submit is None:
        return give_up("no choices")
    wanted = [w.strip() for w in m.group(1).split(",") if w.strip()]
    wanted = [] if wanted == ["nothing"] else wanted
    refs = [find(page, ("checkbox", "radio"), w) for w in wanted]
    if None in refs:
        return give_up("a choice is missing")
    clicks = [{"tool": "click", "ref": r} for r in refs]
    return tool_reply(("bulk", {"actions": [*clicks, {"tool": "click", "ref": submit}]}))


def _focus_text(task: str, page: str) -> Reply:
    box = find(page, ("textbox",))
    return tool_reply(("focus", {"ref": box})) if box else give_up("no textbox")


def _close_dialog(task: str, page: str) -> Reply:
    close = find(page, ("button",), "Close")
    return tool_reply(("click", {"ref": close})) if close else give_up("no Close button")


def _tabs(page: str) -> list[tuple[str, bool]]:
    """(ref, expanded) of each tab line, in page order."""
    found = []
    for line in page.splitlines():
        m = NODE_LINE.match(line.strip())
        if m and m["role"] == "tab":
            found.append((m["ref"], "expanded" in line))
    return found


def _expand(task: str, page: str) -> Reply:
    """click-collapsible: open the section, then Submit once it shows as expanded. The
    accordion makes Submit's paragraph a header too: the snapshot may show it as a tab."""
    submit = find(page, ("button",), "Submit") or find(page, ("tab",), "Submit")
    tabs = [(ref, open_) for ref, open_ in _tabs(page) if ref != submit]
    if submit is None:
        return give_up("no Submit")
    if tabs and not any(open_ for _, open_ in tabs):
        return tool_reply(("click", {"ref": tabs[0][0]}))
    return tool_reply(("click", {"ref": submit}))


def _tab_link(task: str, page: str) -> Reply:
    """click-tab-2: click the link when it shows, else open the tab after the open one."""
    name = quoted(task)
    link = find(page, ("link",), name) if name else None
    if link is not None:
        return tool_reply(("click", {"ref": link}))
    tabs = _tabs(page)
    current = next((i for i, (_, open_) in enumerate(tabs) if open_), -1)
    if not tabs:
        return give_up(f"no link {name!r} and no tabs")
    return tool_reply(("click", {"ref": tabs[(current + 1) % len(tabs)][0]}))


def _autocomplete(task: str, request: dict[str, Any]) -> Reply:
    """use-autocomplete: type the prefix, list the suggestions, pick the one that fits."""
    m = re.search(r'starts with "([^"]+)"(?: and ends with "([^"]+)")?', task)
    page = latest_observation(request)
    box, submit = find(page, ("textbox", "combobox")), find(page, ("button",), "Submit")
    if m is None or box is None or submit is None:
        return give_up("no text field")
    offered = offered_options(request)
    if offered is None:
        return tool_reply(
            ("type", {"ref": box, "text": m.group(1)}), ("get_dropdown_options", {"ref": box})
        )
    end = m.group(2) or ""
    fits = [o for o in offered if o.startswith(m.group(1)) and o.endswith(end)]
    if not fits:
        return give_up("no suggestion fits")
    return tool_reply(
        ("select_option", {"ref": box, "values": [fits[0]]}), ("click", {"ref": submit})
    )


# Tasks whose solver needs the whole request (the previous step's tool results).
REQUEST_SOLVERS: tuple[tuple[re.Pattern[str], Callable[[str, dict[str, Any]], Reply]], ...] = (
    (re.compile(r"^Drag .+ (to the .+|(up|down|left|right) by one( position)?)\.$"), _drag_item),
    (re.compile(r"^Drag the (item|circle) (up|down|left|right) then press Submit\.$"), _drag_shape),
    (re.compile(r"^Sort the numbers in increasing order"), _sort_numbers),
    (re.compile(r"^Drag the smaller box so that it is completely inside"), _drag_box),
    (re.compile(r"^Drag all \w+ into the black box\.$"), _drag_shapes),
    (re.compile(r"^Highlight the text in the (\d+\w\w )?paragraph"), _highlight),
    (re.compile(r"^Resize the textarea so that the (width|height) is"), _resize),
    (re.compile(r"^Enter an item that starts with \""), _autocomplete),
    (re.compile(r"^Find and click on the center of the circle"), circle_center),
    (re.compile(r"^Find and click on the shortest mid-point"), find_midpoint),
    (re.compile(r"^Create a line that bisects the angle"), bisect_angle),
    (re.compile(r"^Add a third point to create a right angle"), right_angle),
    (re.compile(r"^Drag all \w+ (shapes )?into the left box, and everything else"), sort_shapes),
    (re.compile(r"^Create a .+ event named \".+\", between "), daily_calendar),
    (re.compile(r"^Draw a (horizontal|vertical) line that runs through the dot"), draw_line),
    (re.compile(r"^Use the textbox to enter \".+\" and press \"Search\""), search_engine),
    (re.compile(r"^Book the (cheapest|shortest) one-way flight from: "), book_flight),
)

# Utterance patterns of the smoke tasks (click-button, click-link, enter-text) and sliders.
SOLVERS: tuple[tuple[re.Pattern[str], Callable[[str, str], Reply]], ...] = (
    (re.compile(r"^Select \d\d/\d\d/\d{4} as the date and hit submit\.$"), choose_date),
    (re.compile(r"^Find the email by .+ and (reply|forward|click the (trash|star))"), email_inbox),
    (re.compile(r"^For the user @\S+, click on the \".+\" button\.$"), social_media),
    (re.compile(r"^Click the \"\w+\" button on (all|\d+) posts? by @"), social_media_many),
    (re.compile(r"^Select (\w+|the following color .+) with the color picker"), colour_picker),
    (re.compile(r"^Select -?\d+ with the slider and hit Submit\.$"), _use_slider),
    (re.compile(r"^Enter the username \".+\" and the password \".+\""), _login),
    (re.compile(r"^Enter the password \".+\" into both text fields"), _passwords),
    (re.compile(r"^Select .+ from the list and click Submit\.$"), _choose_list),
    (re.compile(r"^Select .* and click Submit\.$"), _tick),
    (re.compile(r"^Focus into the textbox\.$"), _focus_text),
    (re.compile(r"^Close the dialog box by clicking the \"x\"\.$"), _close_dialog),
    (re.compile(r"^Expand the section below and click submit\.$"), _expand),
    (re.compile(r"^Switch between the tabs to find and click on the link \".+\"\.$"), _tab_link),
    (re.compile(r"^Set the sliders to the combination \[.*\] and submit\.$"), _use_slider_2),
    (re.compile(r"^Click on the \".+\" button\.$"), _click_named(("button",))),
    # MiniWoB's "links" are <span class="alink">: a snapshot shows them as generic, named.
    (re.compile(r"^Click on the link \".+\"\.$"), _click_named(("link", "generic"))),
    (re.compile(r"^Enter \".+\" into the text field and press Submit\.$"), _enter_text),
)


# Tasks these policies complete: the acceptance lists of issue 8 (tests/integration/bench,
# bench/miniwob_actions.py). Pointer tasks were outside `core` before the drag/key tools.
POINTER_TASKS: tuple[str, ...] = (
    "use-slider", "use-slider-2", "drag-items", "drag-items-grid", "drag-sort-numbers",
    "drag-single-shape", "drag-circle", "drag-box", "drag-shapes", "highlight-text",
    "highlight-text-2", "resize-textarea", "drag-shapes-2", "daily-calendar",
    "use-colorwheel", "use-colorwheel-2", "circle-center", "find-midpoint", "bisect-angle",
    "right-angle", "draw-line",
)  # fmt: skip
DECISION_TASKS: tuple[str, ...] = (
    "click-button", "click-link", "enter-text", "login-user", "enter-password", "choose-list",
    "click-checkboxes", "click-option", "use-autocomplete", "click-tab-2", "focus-text",
    "click-dialog", "click-collapsible", "choose-date", "choose-date-easy",
    "choose-date-medium", "choose-date-nodelay", "book-flight", "book-flight-nodelay",
    "email-inbox", "email-inbox-delete", "email-inbox-important", "email-inbox-reply",
    "email-inbox-forward", "email-inbox-noscroll", "social-media", "social-media-all",
    "social-media-some", "search-engine", "click-checkboxes-large",
    "click-checkboxes-transfer", "click-collapsible-nodelay", "click-tab-2-easy",
    "click-tab-2-medium", "click-tab-2-hard", "enter-text-dynamic", "unicode-test",
    "use-autocomplete-nodelay",
)  # fmt: skip


def miniwob_policy(request: dict[str, Any]) -> Reply:
    """Worker turns get tool calls; any other role gets a neutral text reply."""
    tool_names = {t.get("function", {}).get("name") for t in request.get("tools") or []}
    if "click" not in tool_names:
        return text_reply("{}")
    task, page = instruction(request), latest_observation(request)
    for pattern, solve in SOLVERS:
        if pattern.match(task):
            return solve(task, page)
    for pattern, solve_request in REQUEST_SOLVERS:
        if pattern.match(task):
            return solve_request(task, request)
    return give_up("this scripted policy only knows the smoke tasks")


def wrong_button_policy(request: dict[str, Any]) -> Reply:
    """Clicks a button whose name is NOT the one asked for (to exercise wrong_answer)."""
    task, page = instruction(request), latest_observation(request)
    wanted = quoted(task)
    for el in nodes(page):
        if el.role == "button" and el.name.strip() != wanted:
            return tool_reply(("click", {"ref": el.ref}))
    return give_up("only the right button is on the page")
