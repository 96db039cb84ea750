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
Issue 26 item 5: a page small enough (at most three viewports tall, every line within a
quarter of the budget) is shown whole, so a click that scrolls it does not take the lines
above out of view.
Tokens are counted with o200k_base (tokens.py). The lines themselves are made in
compact_lines.py, the viewport boundary lines in viewport_marks.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from workers.browser.observe.compact_lines import (
    CUT_OVER,
    Section,
    assemble,
    line,
    marker,
    quoted,
    section_lines,
    sections,
    shown_text,
)
from workers.browser.observe.tokens import count_tokens
from workers.browser.observe.viewport_marks import marked, viewport_marks

if TYPE_CHECKING:
    from workers.browser.observe.nodes import Node, Viewport

__all__ = [
    "CUT_OVER",
    "line",
    "quoted",
    "render",
    "render_range",
    "shown_text",
]

NEAR_BELOW = 1000  # px under the viewport whose sections may be shown in detail
NEAR_ABOVE = 500  # px above it; farther sections stay one summary line with their ref range
FILL_SHARE = 1 / 4  # main content fills the budget up to this share when the window leaves it
SMALL_SHARE = 1 / 4  # a page whose every line fits in this share of the budget is shown whole
SMALL_SCREENS = 3  # ... when it is at most this many viewports tall


def _cost(sec: Section, mode: str) -> int:
    """Tokens of the section's lines in `mode` (+6 for a landmark line and the newline)."""
    if mode == "summary":
        return 0
    previous, sec.mode = sec.mode, mode
    cost = sum(count_tokens(t) + 1 for _, t in section_lines(sec, capped=True)) + 6
    sec.mode = previous
    return cost


def _header(vp: Viewport) -> list[str]:
    if vp.doc_height <= vp.height + 1:
        return []
    top, bottom = int(vp.scroll_y), int(vp.scroll_y + vp.height)
    return [f"[viewport shows {top}-{bottom}px of {int(vp.doc_height)}px page height]"]


def render(nodes: Sequence[Node], version: int, viewport: Viewport, max_tokens: int | None) -> str:
    """Compact view; with max_tokens, viewport first and the rest by section (seed 003 §6.1)."""
    secs = sections(nodes)
    head = [(0, h) for h in _header(viewport)]
    if max_tokens is None:
        for s in secs:
            s.mode = "full"
        return _join(head + assemble(secs, capped=False))
    for s in secs:
        s.mode = "full"
    small = viewport.doc_height <= viewport.height * SMALL_SCREENS
    marks = viewport_marks(nodes, viewport.height)
    uncut = head + assemble(secs, capped=False)  # issue 31 item 6: long texts not cut
    if small and count_tokens(_join(uncut)) <= max_tokens * SMALL_SHARE:
        return _join(marked(uncut, marks))
    whole = head + assemble(secs, capped=True)
    if small and count_tokens(_join(whole)) <= max_tokens * SMALL_SHARE:
        # issue 26 item 5: a small page stays whole wherever it scrolled; wave 5 item 2: the
        # viewport's edges are marked in it as on any page
        return _join(marked(whole, marks))
    for s in secs:
        s.mode = "full" if s.in_view else "summary"
    base = marked(head + assemble(secs, capped=True), marks)
    remaining = max_tokens - count_tokens(_join(base))
    if remaining < 0 and marks is not None:  # a tight cap keeps the page, not the marks
        marks = None
        base = head + assemble(secs, capped=True)
        remaining = max_tokens - count_tokens(_join(base))
    if remaining >= 0:
        _upgrade([s for s in _priority(secs) if _near(s, viewport)], remaining)
        base = marked(head + assemble(secs, capped=True), marks)
        fill = int(max_tokens * FILL_SHARE) - count_tokens(_join(base))
        main = [s for s in secs if s.mode != "full" and _is_main(s)]
        shown = any(s.mode == "full" and _is_main(s) for s in secs)
        if fill > 0 and main and not shown:  # only when the window left the main content out
            _fill(main, fill)
            base = marked(head + assemble(secs, capped=True), marks)
    return _cut(base, nodes[-1].index if nodes else 0, max_tokens)


def _upgrade(order: Sequence[Section], remaining: int, partial: bool = False) -> int:
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


def _fill(order: Sequence[Section], remaining: int) -> None:
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


def _keep_what_fits(sec: Section, remaining: int) -> int:
    """Full mode cut to the first lines that fit in `remaining` tokens; returns the delta."""
    before = _cost(sec, sec.mode)
    previous, sec.mode = sec.mode, "full"
    lines = section_lines(sec, capped=True)
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


def _is_main(sec: Section) -> bool:
    """A section inside a main or article landmark (the page's own content)."""
    parts = [p.split(" ")[0] for p in sec.nodes[0].landmark.split(" > ")]
    return "main" in parts or "article" in parts


def render_range(nodes: Sequence[Node], viewport: Viewport, max_tokens: int) -> str:
    """Lines the model asked for by range: all of them, cut at the cap with a marker."""
    secs = sections(nodes)
    for s in secs:
        s.mode = "full"
    return _cut(assemble(secs, capped=False), nodes[-1].index if nodes else 0, max_tokens)


def _join(lines: Sequence[tuple[int, str]]) -> str:
    return "\n".join(t for _, t in lines)


def _priority(secs: Sequence[Section]) -> list[Section]:
    """Off-viewport sections: below the viewport first (nearest first), then above (nearest)."""
    view = [i for i, s in enumerate(secs) if s.in_view]
    last = view[-1] if view else -1
    first = view[0] if view else len(secs)
    below = [s for i, s in enumerate(secs) if i > last]
    above = [s for i, s in enumerate(secs) if i < first][::-1]
    between = [s for i, s in enumerate(secs) if first < i < last and not s.in_view]
    return between + below + above


def _near(sec: Section, vp: Viewport) -> bool:
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
            kept.append(marker((max(index, 1), max(last, index, 1)), "rest of the page"))
            break
        kept.append(text)
        used += cost
    return "\n".join(kept)
