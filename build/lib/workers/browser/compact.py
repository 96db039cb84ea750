"""Compact text rendering of a snapshot, sized for the model (seed 003 §6.1-6.2).

Line format: `[3:12] button "Sort by price"`, `[3:14] textbox "Email" value="a@b.c" required`,
`## Heading`, plain text lines, and `== main > form "Checkout" ==` when the landmark changes.
The viewport stays whole; sections near it (1000px below, 500px above, as browser-use's
viewport+1000px view) are added in detail while the cap allows, nearest first; everything
else becomes an explicit one-line marker per run of sections that the model can expand with
the snapshot(range) tool: `[refs 120-480 trimmed: list, 36 items like "..."]`. The trimming is
deterministic (seed 003 uses a small LLM; here: keep forms/controls first, lists as first
items plus a pattern line). Tokens are approximated as ceil(chars / 4).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workers.browser.snapshot import Node, Viewport

LIST_HEAD = 3  # items shown before a list's pattern line
LIST_MIN = 6  # lists shorter than this are never collapsed
TEXT_CAP = 300  # chars of one text line kept once the page is over budget
NEAR_BELOW = 1000  # px under the viewport whose sections may be shown in detail
NEAR_ABOVE = 500  # px above it; farther sections stay one summary line with their ref range


def approx_tokens(text: str) -> int:
    """~4 characters per token (o200k/cl100k average on English markup-free text)."""
    return (len(text) + 3) // 4


def _q(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def line(node: Node, text_cap: int | None = None) -> str:
    """One node as the model sees it."""
    if node.role == "heading":
        return "#" * max(1, min(node.level, 6)) + " " + node.name
    if not node.interactive:
        t = node.name
        return t if text_cap is None or len(t) <= text_cap else t[: text_cap - 1] + "…"
    out = f"[{node.ref}] {node.role}"
    if node.name:
        out += " " + _q(node.name)
    if node.value is not None and node.value != "":
        out += " value=" + _q(node.value)
    if node.states:
        out += " " + " ".join(node.states)
    return out


@dataclass
class _Section:
    nodes: list[Node]
    in_view: bool
    mode: str = "summary"  # summary | skeleton | full

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
        return " ".join(p for p in (where, _q(_clip(head, 40)) if head else "") if p) or "content"


def _clip(s: str, n: int) -> str:
    return s if len(s) <= n else s[: n - 1] + "…"


def _sections(nodes: Sequence[Node]) -> list[_Section]:
    out: list[_Section] = []
    key: object = None
    for n in nodes:
        k = (n.frame, n.landmark, n.list_id or n.heading)
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
    if dropped:
        out.append((None, _marker(sec.span, f"{dropped} text lines")))
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
    if mode == "summary":
        return 0
    previous, sec.mode = sec.mode, mode
    cost = sum(len(t) + 1 for _, t in _section_lines(sec, capped=True)) + 24
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
    base = head + _assemble(secs, capped=True)
    budget = max_tokens * 4
    remaining = budget - len(_join(base))
    if remaining >= 0:
        order = [s for s in _priority(secs) if _near(s, viewport)]
        for mode in ("skeleton", "full"):
            for s in order:
                delta = _cost(s, mode) - _cost(s, s.mode)
                if delta <= remaining:
                    remaining -= delta
                    s.mode = mode
        base = head + _assemble(secs, capped=True)
    return _cut(base, nodes[-1].index if nodes else 0, budget)


def render_range(nodes: Sequence[Node], viewport: Viewport, max_tokens: int) -> str:
    """Lines the model asked for by range: all of them, cut at the cap with a marker."""
    secs = _sections(nodes)
    for s in secs:
        s.mode = "full"
    return _cut(_assemble(secs, capped=False), nodes[-1].index if nodes else 0, max_tokens * 4)


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
    """Keep whole lines up to the cap and say which refs were left out (seed 003 Fig. 11)."""
    kept: list[str] = []
    used = 0
    for i, (index, text) in enumerate(lines):
        if (used + len(text) + 1 > budget - 60 and i < len(lines) - 1) or used + len(text) > budget:
            kept.append(_marker((max(index, 1), max(last, index, 1)), "rest of the page"))
            break
        kept.append(text)
        used += len(text) + 1
    return "\n".join(kept)
