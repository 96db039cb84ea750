"""The lines of the compact view: one node as the model sees it, sections of nodes, and the
trim markers that stand for what a section leaves out (seed 003 §6.1-6.2, issue 7 classes 9-10).

`workers/browser/observe/compact.py` decides which sections are shown in which mode; this module
turns a section in a mode into lines.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workers.agent import textcut

if TYPE_CHECKING:
    from workers.browser.observe.nodes import Node

LIST_HEAD = 3  # items shown before a list's pattern line
LIST_MIN = 6  # lists shorter than this are never collapsed
TEXT_CAP = 200  # chars of one text line kept once the page is over budget (+ read_text marker)
CUT_SLACK = 80  # a line at most this much over the cap stays whole (the marker costs as much)
CONTROL_CAP = 80  # chars of a control's name kept when the page cut it (js: 100) + marker
CUT_OVER = 200  # text longer than this may be cut (PageMem caps at 200): it gets a ref target
ROW_MAX_CHARS = 800  # a grid row longer than this keeps one line per cell


def quoted(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def shown_text(node: Node, text_cap: int | None = None, slack: int = CUT_SLACK) -> str:
    """The node's name, cut at text_cap (unless it is at most `slack` longer), with a marker
    naming the ref that reads the rest."""
    name = node.name
    if text_cap is not None and len(name) > text_cap + slack:
        name = textcut.cut(name, text_cap)
    full = max(node.full_len, len(node.name))
    if full <= len(name):
        return name
    return f"{name}…[+{full - len(name)} chars: read_text {node.ref}]"


def line(node: Node, text_cap: int | None = None) -> str:
    """One node as the model sees it."""
    if node.role == "heading":
        return "#" * max(1, min(node.level, 6)) + " " + node.name
    if not node.interactive:  # wave 5 item 2: a block laid over a list's rows names them
        return shown_text(node, text_cap) + (f" [{node.place}]" if node.place else "")
    out = f"[{node.ref}] {node.role}"
    if node.name:  # a control name cut in the page keeps a shorter prefix beside its marker
        cut = CONTROL_CAP if node.full_len > len(node.name) else None
        out += " " + quoted(shown_text(node, cut, slack=0))
    if node.beside:  # issue 26 item 2: what a "+" or "-" belongs to
        out += f" beside {quoted(node.beside)}"
    if node.place:  # wave 5 item 4: one of many same-named controls, by its grid position
        out += f" at {node.place}"
    if node.aria:  # issue 12: a differing aria-label beside the visible text, not instead
        out += f" [aria-label: {quoted(node.aria)}]"
    if node.value is not None and node.value != "":
        out += " value=" + quoted(node.value)
    if node.states:
        out += " " + " ".join(_state(s, node) for s in node.states)
    if node.options:  # issue 26 item 2: a select's options, not only in the image
        out += f" options: {node.options}"
    return out


def _state(word: str, node: Node) -> str:
    """A state word; `covered` says by what when the walk found out; `icon` (a control with
    no name, issue 26 item 3) says where its centre is, so the model knows where to look;
    `box` (a canvas, a dot) its size and centre."""
    x, y, w, h = node.bbox
    if word == "icon":
        return f"icon at ({round(x + w / 2)},{round(y + h / 2)})"
    if word == "box":  # wave 5b: a canvas or a nameless dot, by its size and centre
        return f"{round(w)}x{round(h)} at ({round(x + w / 2)},{round(y + h / 2)})"
    return f"covered by {node.cover}" if word == "covered" and node.cover else word


@dataclass
class Section:
    nodes: list[Node]
    in_view: bool
    mode: str = "summary"  # summary | skeleton | full
    keep: int | None = None  # full mode: lines kept before a trim marker (None: all)

    @property
    def span(self) -> tuple[int, int]:
        return self.nodes[0].index, self.nodes[-1].index

    @property
    def label(self) -> str:
        first = self.nodes[0]
        if first.list_id is not None:
            items = len({n.item for n in self.nodes})
            sample = next((n.name for n in self.nodes if n.name), "")
            return f"list, {items} items like {quoted(clip(sample, 40))}"
        where = first.landmark
        head = first.heading
        label = " ".join(p for p in (where, quoted(clip(head, 40)) if head else "") if p)
        if label:
            return label
        sample = next((n.name for n in self.nodes if n.name), "")
        return f"content like {quoted(clip(sample, 40))}" if sample else "content"


def clip(s: str, n: int) -> str:
    return textcut.clip(s, n)


def sections(nodes: Sequence[Node]) -> list[Section]:
    out: list[Section] = []
    key: object = None
    for n in nodes:
        # a grid's cells stay one section (its rows render as lines, class 10)
        k = (n.frame, n.landmark, n.grid or n.list_id or n.heading)
        if out and k == key:
            out[-1].nodes.append(n)
            out[-1].in_view = out[-1].in_view or n.in_viewport
        else:
            out.append(Section([n], n.in_viewport))
            key = k
    return out


def marker(span: tuple[int, int], what: str) -> str:
    a, b = span
    refs = f"refs {a}-{b}" if a != b else f"ref {a}"
    return f"[{refs} trimmed: {what}]"


def section_lines(sec: Section, capped: bool) -> list[tuple[Node | None, str]]:
    """(node, line) pairs; node None for markers. Long lists keep their first items."""
    cap = TEXT_CAP if capped else None
    nodes = sec.nodes
    out: list[tuple[Node | None, str]] = []
    items = sorted({n.item for n in nodes if n.item is not None})
    if capped and nodes[0].list_id is not None and len(items) >= LIST_MIN and not sec.in_view:
        keep = set(items[:LIST_HEAD])
        head = [n for n in nodes if n.item in keep]
        rest = [n for n in nodes if n.item not in keep]
        out = [(n, line(n, cap)) for n in head if sec.mode == "full" or n.interactive or n.level]
        sample = next((r.name for r in rest if r.name), "")
        what = f"{len(items) - LIST_HEAD} more items like {quoted(clip(sample, 40))}"
        out.append((None, marker((rest[0].index, rest[-1].index), what)))
        return out
    dropped = 0
    for n in nodes:
        if sec.mode == "skeleton" and not (n.interactive or n.role == "heading"):
            dropped += 1
            continue
        out.append((n, line(n, cap)))
    out = _rows(out)
    if sec.mode == "full" and sec.keep is not None and sec.keep < len(out):
        rest = [n for n, _ in out[sec.keep :] if n is not None]
        out = out[: sec.keep]
        if rest:
            span = (rest[0].index, sec.span[1])
            out.append((None, marker(span, f"{len(rest)} more lines")))
    if dropped:
        out.append((None, marker(sec.span, f"{dropped} text lines")))
    return out


def _rows(
    pairs: list[tuple[Node | None, str]],
) -> list[tuple[Node | None, str]]:
    """Consecutive cells of one grid row become one `a | b | c` line (class 10)."""
    out: list[tuple[Node | None, str]] = []
    i = 0
    while i < len(pairs):
        first = pairs[i][0]
        if first is None or first.grid is None or first.col is None:
            out.append(pairs[i])
            i += 1
            continue
        cells: dict[int, list[str]] = {}
        j = i
        while j < len(pairs):
            n = pairs[j][0]
            if n is None or n.grid != first.grid or n.row != first.row or n.col is None:
                break
            cells.setdefault(n.col, []).append(pairs[j][1])
            j += 1
        # empty cells keep the columns aligned up to the row's last filled cell, none after it
        row = " | ".join(" ".join(cells.get(c, [])) for c in range(1, max(cells) + 1))
        if len(row) <= ROW_MAX_CHARS:
            out.append((first, row))
        else:
            out.extend(pairs[i:j])
        i = j
    return out


def summary(run: Sequence[Section]) -> str:
    roles: Counter[str] = Counter()
    labels: list[str] = []
    for sec in run:
        roles.update(
            "text" if not n.interactive else n.role for n in sec.nodes if n.role != "heading"
        )
        if sec.label not in labels:
            labels.append(sec.label)
    what = "; ".join(labels[:3]) + ("; …" if len(labels) > 3 else "")
    counts = ", ".join(f"{c} {r}" for r, c in roles.most_common(4))
    return marker((run[0].span[0], run[-1].span[1]), f"{what} ({counts})" if counts else what)


def assemble(secs: Sequence[Section], capped: bool) -> list[tuple[int, str]]:
    """(first ref index covered, line) pairs in document order."""
    lines: list[tuple[int, str]] = []
    landmark: str | None = None
    pending: list[Section] = []
    for sec in secs:
        if sec.mode == "summary":
            pending.append(sec)
            continue
        if pending:
            lines.append((pending[0].span[0], summary(pending)))
            pending = []
        for node, text in section_lines(sec, capped):
            if node is not None and node.landmark != landmark:
                landmark = node.landmark
                if landmark:
                    lines.append((node.index, f"== {landmark} =="))
            lines.append((node.index if node else sec.span[0], text))
    if pending:
        lines.append((pending[0].span[0], summary(pending)))
    return lines
