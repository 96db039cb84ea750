"""Compact text rendering of a snapshot, sized for the model (seed 003 §6.1-6.2).

Line format: `[3:12] button "Sort by price"`, `[3:14] textbox "Email" value="a@b.c" required`,
`## Heading`, plain text lines, and `== main > form "Checkout" ==` when the landmark changes.
The viewport stays whole; sections near it (1000px below, 500px above, as browser-use's
viewport+1000px view) are added in detail while the cap allows, nearest first; everything
else becomes an explicit one-line marker per run of sections that the model can expand with
the snapshot(range) tool: `[refs 120-480 trimmed: list, 36 items like "..."]`. The trimming is
deterministic (seed 003 uses a small LLM; here: keep forms/controls first, lists as first
items plus a pattern line).

Issue 7 (observation fidelity): text cut short says how much and how to read the rest
(`…[+1840 chars: read_text 3:12]`, class 9); the cells of a table or grid share one line per
row, `a | b | c`, empty cells kept so columns line up (class 10); the content above and below
the viewport is announced where the viewport starts and ends (class 6); when the detail window
leaves most of the budget unused, main/article sections fill it, headings first (class 11).
Tokens are counted with o200k_base (tokens.py).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from workers.browser.tokens import count_tokens

if TYPE_CHECKING:
    from workers.browser.snapshot import Node, Viewport

LIST_HEAD = 3  # items shown before a list's pattern line
LIST_MIN = 6  # lists shorter than this are never collapsed
TEXT_CAP = 200  # chars of one text line kept once the page is over budget (+ read_text marker)
CUT_SLACK = 80  # a line at most this much over the cap stays whole (the marker costs as much)
CONTROL_CAP = 80  # chars of a control's name kept when the page cut it (js: 100) + marker
CUT_OVER = 200  # text longer than this may be cut (PageMem caps at 200): it gets a ref target
NEAR_BELOW = 1000  # px under the viewport whose sections may be shown in detail
NEAR_ABOVE = 500  # px above it; farther sections stay one summary line with their ref range
EDGE_PX = 60  # a few lines (EDGE_LINES) this close past a viewport edge need no edge line
EDGE_LINES = 3
FILL_SHARE = 1 / 4  # main content fills the budget up to this share when the window leaves it
ROW_MAX_CHARS = 800  # a grid row longer than this keeps one line per cell


def _q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def shown_text(node: Node, text_cap: int | None = None, slack: int = CUT_SLACK) -> str:
    """The node's name, cut at text_cap (unless it is at most `slack` longer), with a marker
    naming the ref that reads the rest."""
    name = node.name
    if text_cap is not None and len(name) > text_cap + slack:
        name = name[:text_cap]
    full = max(node.full_len, len(node.name))
    if full <= len(name):
        return name
    return f"{name}…[+{full - len(name)} chars: read_text {node.ref}]"


def line(node: Node, text_cap: int | None = None) -> str:
    """One node as the model sees it."""
    if node.role == "heading":
        return "#" * max(1, min(node.level, 6)) + " " + node.name
    if not node.interactive:
        return shown_text(node, text_cap)
    out = f"[{node.ref}] {node.role}"
    if node.name:  # a control name cut in the page keeps a shorter prefix beside its marker
        cut = CONTROL_CAP if node.full_len > len(node.name) else None
        out += " " + _q(shown_text(node, cut, slack=0))
    if node.aria:  # issue 12: a differing aria-label beside the visible text, not instead
        out += f" [aria-label: {_q(node.aria)}]"
    if node.value is not None and node.value != "":
        out += " value=" + _q(node.value)
    if node.states:
        out += " " + " ".join(_state(s, node) for s in node.states)
    return out


def _state(word: str, node: Node) -> str:
    """A state word; `covered` says by what when the walk found out."""
    return f"covered by {node.cover}" if word == "covered" and node.cover else word


@dataclass
class _Section:
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
            return f"list, {items} items like {_q(_clip(sample, 40))}"
        where = first.landmark
        head = first.heading
        label = " ".join(p for p in (where, _q(_clip(head, 40)) if head else "") if p)
        if label:
            return label
        sample = next((n.name for n in self.nodes if n.name), "")
        return f"content like {_q(_clip(sample, 40))}" if sample else "content"


def _clip(s: str, n: int) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def _sections(nodes: Sequence[Node]) -> list[_Section]:
    out: list[_Section] = []
    key: object = None
    for n in nodes:
        # a grid's cells stay one section (its rows render as lines, class 10)
        k = (n.frame, n.landmark, n.grid or n.list_id or n.heading)
        if out and k == key:
            out[-1].nodes.append(n)
            out[-1].in_view = out[-1].in_view or n.in_viewport
        else:
            out.append(_Section([n], n.in_viewport))
            key = k
    return out


def _marker(span: tuple[int, int], what: str) -> str:
    a, b = span
    refs = f"refs {a}-{b}" if a != b else f"ref {a}"
    return f"[{refs} trimmed: {what}]"


def _section_lines(sec: _Section, capped: bool) -> list[tuple[Node | None, str]]:
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
        what = f"{len(items) - LIST_HEAD} more items like {_q(_clip(sample, 40))}"
        out.append((None, _marker((rest[0].index, rest[-1].index), what)))
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
            out.append((None, _marker(span, f"{len(rest)} more lines")))
    if dropped:
        out.append((None, _marker(sec.span, f"{dropped} text lines")))
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


def _summary(run: Sequence[_Section]) -> str:
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
    return _marker((run[0].span[0], run[-1].span[1]), f"{what} ({counts})" if counts else what)


def _assemble(secs: Sequence[_Section], capped: bool) -> list[tuple[int, str]]:
    """(first ref index covered, line) pairs in document order."""
    lines: list[tuple[int, str]] = []
    landmark: str | None = None
    pending: list[_Section] = []
    for sec in secs:
        if sec.mode == "summary":
            pending.append(sec)
            continue
        if pending:
            lines.append((pending[0].span[0], _summary(pending)))
            pending = []
        for node, text in _section_lines(sec, capped):
            if node is not None and node.landmark != landmark:
                landmark = node.landmark
                if landmark:
                    lines.append((node.index, f"== {landmark} =="))
            lines.append((node.index if node else sec.span[0], text))
    if pending:
        lines.append((pending[0].span[0], _summary(pending)))
    return lines


def _cost(sec: _Section, mode: str) -> int:
    """Tokens of the section's lines in `mode` (+6 for a landmark line and the newline)."""
    if mode == "summary":
        return 0
    previous, sec.mode = sec.mode, mode
    cost = sum(count_tokens(t) + 1 for _, t in _section_lines(sec, capped=True)) + 6
    sec.mode = previous
    return cost


def _header(vp: Viewport) -> list[str]:
    if vp.doc_height <= vp.height + 1:
        return []
    top, bottom = int(vp.scroll_y), int(vp.scroll_y + vp.height)
    return [f"[viewport shows {top}-{bottom}px of {int(vp.doc_height)}px page height]"]


def render(nodes: Sequence[Node], version: int, viewport: Viewport, max_tokens: int | None) -> str:
    """Compact view; with max_tokens, viewport first and the rest by section (seed 003 §6.1)."""
    secs = _sections(nodes)
    head = [(0, h) for h in _header(viewport)]
    if max_tokens is None:
        for s in secs:
            s.mode = "full"
        return _join(head + _assemble(secs, capped=False))
    for s in secs:
        s.mode = "full" if s.in_view else "summary"
    marks = _viewport_marks(nodes, viewport.height)
    base = _marked(head + _assemble(secs, capped=True), marks)
    remaining = max_tokens - count_tokens(_join(base))
    if remaining < 0 and marks is not None:  # a tight cap keeps the page, not the marks
        marks = None
        base = head + _assemble(secs, capped=True)
        remaining = max_tokens - count_tokens(_join(base))
    if remaining >= 0:
        _upgrade([s for s in _priority(secs) if _near(s, viewport)], remaining)
        base = _marked(head + _assemble(secs, capped=True), marks)
        fill = int(max_tokens * FILL_SHARE) - count_tokens(_join(base))
        main = [s for s in secs if s.mode != "full" and _is_main(s)]
        shown = any(s.mode == "full" and _is_main(s) for s in secs)
        if fill > 0 and main and not shown:  # only when the window left the main content out
            _fill(main, fill)
            base = _marked(head + _assemble(secs, capped=True), marks)
    return _cut(base, nodes[-1].index if nodes else 0, max_tokens)


def _upgrade(order: Sequence[_Section], remaining: int, partial: bool = False) -> int:
    """Skeleton (headings, controls) for every section first, then full text, while it fits;
    with `partial`, a section too big for full keeps the lines that fit."""
    for mode in ("skeleton", "full"):
        for s in order:
            delta = _cost(s, mode) - _cost(s, s.mode)
            if delta <= remaining:
                remaining -= delta
                s.mode = mode
            elif partial and mode == "full" and remaining > 20:
                remaining -= _keep_what_fits(s, remaining)
    return remaining


def _fill(order: Sequence[_Section], remaining: int) -> None:
    """Main content in reading order (headline, byline, first paragraphs): each section in
    full while it fits, the first one that does not keeps its first lines, then stop."""
    for s in order:
        delta = _cost(s, "full") - _cost(s, s.mode)
        if delta <= remaining:
            remaining -= delta
            s.mode = "full"
            continue
        if remaining > 20:
            _keep_what_fits(s, remaining)
        return


def _keep_what_fits(sec: _Section, remaining: int) -> int:
    """Full mode cut to the first lines that fit in `remaining` tokens; returns the delta."""
    before = _cost(sec, sec.mode)
    previous, sec.mode = sec.mode, "full"
    lines = _section_lines(sec, capped=True)
    used, keep = before + 16, 0  # the trim marker's line
    for _, text in lines:
        used += count_tokens(text) + 1
        if used - before > remaining:
            break
        keep += 1
    if keep == 0:
        sec.mode = previous
        return 0
    sec.keep = keep
    return _cost(sec, "full") - before


def _is_main(sec: _Section) -> bool:
    """A section inside a main or article landmark (the page's own content)."""
    parts = [p.split(" ")[0] for p in sec.nodes[0].landmark.split(" > ")]
    return "main" in parts or "article" in parts


Marks = tuple[int, int, tuple[str, str], tuple[str, str]]


def _viewport_marks(nodes: Sequence[Node], height: float) -> Marks | None:
    """(first in-view index, last in-view index, above, below), class 6; each side as (bare
    boundary line, line with the count and one example name): the second is used only when
    nothing on that side is shown in detail (only trim lines say what lies there). A side
    holding only a few lines just past the edge (a page's last lines) gets no line."""
    shown = [n.index for n in nodes if n.in_viewport]
    if not shown:
        return None
    first, last = shown[0], shown[-1]
    above = [n for n in nodes if n.index < first and not n.in_viewport]
    below = [n for n in nodes if n.index > last and not n.in_viewport]
    if len(below) <= EDGE_LINES and all(n.bbox[1] < height + EDGE_PX for n in below):
        below = []
    if len(above) <= EDGE_LINES and all(n.bbox[1] + n.bbox[3] > -EDGE_PX for n in above):
        above = []
    return first, last, _mark("above viewport", above), _mark("below viewport", below)


def _mark(where: str, nodes: Sequence[Node]) -> tuple[str, str]:
    if not nodes:
        return "", ""
    named = [n.name for n in nodes if n.name and (n.interactive or n.role == "heading")]
    named = named or [n.name for n in nodes if n.name]
    plain = f"[{where}]"  # the boundary; the detail lines on that side say what is there
    counted = f"[{where}: {len(nodes)} elements"
    if not named:
        return plain, counted + "]"
    return plain, f"{counted} incl. {_q(_clip(named[0], 30))}]"


_TRIM = re.compile(r"\[refs? \d+(?:-\d+)? trimmed: ")


def _detail(lines: Sequence[tuple[int, str]]) -> bool:
    """Some line is content, not a trim marker, landmark or the header."""
    return any(
        index > 0 and not _TRIM.match(text) and not text.startswith("== ") for index, text in lines
    )


def _marked(lines: list[tuple[int, str]], marks: Marks | None) -> list[tuple[int, str]]:
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


def render_range(nodes: Sequence[Node], viewport: Viewport, max_tokens: int) -> str:
    """Lines the model asked for by range: all of them, cut at the cap with a marker."""
    secs = _sections(nodes)
    for s in secs:
        s.mode = "full"
    return _cut(_assemble(secs, capped=False), nodes[-1].index if nodes else 0, max_tokens)


def _join(lines: Sequence[tuple[int, str]]) -> str:
    return "\n".join(t for _, t in lines)


def _priority(secs: Sequence[_Section]) -> list[_Section]:
    """Off-viewport sections: below the viewport first (nearest first), then above (nearest)."""
    view = [i for i, s in enumerate(secs) if s.in_view]
    last = view[-1] if view else -1
    first = view[0] if view else len(secs)
    below = [s for i, s in enumerate(secs) if i > last]
    above = [s for i, s in enumerate(secs) if i < first][::-1]
    between = [s for i, s in enumerate(secs) if first < i < last and not s.in_view]
    return between + below + above


def _near(sec: _Section, vp: Viewport) -> bool:
    """Within NEAR_BELOW px under / NEAR_ABOVE px above the viewport (top-level CSS px)."""
    top = min(n.bbox[1] for n in sec.nodes)
    bottom = max(n.bbox[1] + n.bbox[3] for n in sec.nodes)
    return top < vp.height + NEAR_BELOW and bottom > -NEAR_ABOVE


def _cut(lines: Sequence[tuple[int, str]], last: int, budget: int) -> str:
    """Keep whole lines up to the cap (in tokens) and say which refs were left out (seed 003
    Fig. 11)."""
    kept: list[str] = []
    used = 0
    for i, (index, text) in enumerate(lines):
        cost = count_tokens(text) + 1
        if (used + cost > budget - 14 and i < len(lines) - 1) or used + cost > budget:
            kept.append(_marker((max(index, 1), max(last, index, 1)), "rest of the page"))
            break
        kept.append(text)
        used += cost
    return "\n".join(kept)
