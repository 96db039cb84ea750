"""PageMem (seed 001 §2.2, App. A.1): the page as an ordered list of semantic sections.

Built deterministically from engineer A's Snapshot nodes (their section hints: landmark
ancestry, nearest heading, repeated-sibling list id + item number), so no second DOM walk.
Sections carry deterministic titles, a content hash that keys the optional one-line LLM
summaries (cached while unchanged, `summaries.py`), and a modal flag (seed 001 App. A.4).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from workers.agent import textcut
from workers.browser.observe import compact, tokens
from workers.browser.observe.snapshot import Node, Snapshot

MAX_SECTION_NODES = 40  # "normal sections are size-bounded" (seed 001 §2.2): one LLM call
SMALL_SECTION_NODES = 4  # crumbs smaller than this merge into a neighbour
MIN_LIST_ITEMS = 4  # a group holding a list of 2x this many items is always split
LIST_SECTION_ITEMS = 6  # repeated siblings become a list section from this many items
LIST_PREVIEW_ITEMS = 3  # list sections show a few items, the rest stays behind an expand
DIALOG_ROLES = ("dialog", "alertdialog")


@dataclass(frozen=True)
class Section:
    """A PageSection: a sub-tree of the page with DOM-derived attributes (seed 001 A.1.1)."""

    id: str  # "s1", "s2", ... in document order
    kind: str  # landmark role, "list", "content" or "dialog"
    title: str  # deterministic: landmark + label, heading, list size
    nodes: tuple[Node, ...]
    items: tuple[Section, ...] = ()  # one sub-section per item for list sections
    content_hash: str = ""  # over roles/names/values/states, independent of ref versions
    summary: str = ""  # one-line LLM summary, filled from the cache
    modal: bool = False

    @property
    def interactive(self) -> int:
        return sum(1 for n in self.nodes if n.interactive)

    @property
    def in_viewport(self) -> bool:
        return any(n.in_viewport for n in self.nodes)

    @property
    def is_list(self) -> bool:
        return self.kind == "list"


@dataclass(frozen=True)
class PageMem:
    url: str
    title: str
    version: int
    sections: tuple[Section, ...]
    snapshot: Snapshot = field(repr=False, compare=False)

    @property
    def modal(self) -> Section | None:
        """The open modal dialog, if any: it becomes the whole observation (seed 001 A.4)."""
        return next((s for s in self.sections if s.modal), None)

    def section(self, section_id: str) -> Section | None:
        return next((s for s in self.sections if s.id == section_id), None)


def node_key(n: Node) -> str:
    """A node's identity across snapshot versions (refs change, content does not)."""
    return "\u0001".join((n.role, n.name, n.value or "", ",".join(n.states), str(n.level)))


def content_hash(nodes: Iterable[Node]) -> str:
    return hashlib.sha1("\u0002".join(node_key(n) for n in nodes).encode()).hexdigest()[:16]


def _last_landmark(landmark: str) -> str:
    return landmark.rsplit(" > ", 1)[-1] if landmark else ""


def _dialog_root(landmark: str) -> str | None:
    parts = landmark.split(" > ") if landmark else []
    for i, part in enumerate(parts):
        if part.split(" ", 1)[0] in DIALOG_ROLES:
            return " > ".join(parts[: i + 1])
    return None


def _segments(landmark: str) -> list[str]:
    return landmark.split(" > ") if landmark else []


def _common_landmark(nodes: Sequence[Node]) -> str:
    common = _segments(nodes[0].landmark)
    for n in nodes[1:]:
        segs = _segments(n.landmark)
        k = 0
        while k < min(len(common), len(segs)) and common[k] == segs[k]:
            k += 1
        common = common[:k]
    return " > ".join(common)


@dataclass
class _Draft:
    nodes: list[Node]
    kind: str  # "list", "dialog" or "" (normal: kind from its landmark)

    @property
    def small(self) -> bool:
        return self.kind == "" and len(self.nodes) < SMALL_SECTION_NODES


def _by_segment(nodes: Sequence[Node], depth: int) -> list[tuple[str | None, list[Node]]]:
    """Consecutive groups keyed by the landmark segment at `depth` (None: not deeper)."""
    groups: list[tuple[str | None, list[Node]]] = []
    for n in nodes:
        segs = _segments(n.landmark)
        key = (str(n.frame), segs[depth]) if depth < len(segs) else (str(n.frame), None)
        if groups and groups[-1][0] == key[1] and str(groups[-1][1][-1].frame) == key[0]:
            groups[-1][1].append(n)
        else:
            groups.append((key[1], [n]))
    return groups


def _divide(nodes: Sequence[Node], depth: int, out: list[_Draft]) -> None:
    """Recursive split (seed 001 A.1.2): stop at a size threshold or a grouping node;
    dialogs are terminal, repeated siblings become list sections, headings cut the rest."""
    for seg, group in _by_segment(nodes, depth):
        if seg is not None and seg.split(" ", 1)[0] in DIALOG_ROLES:
            out.append(_Draft(group, "dialog"))
        elif len(group) <= MAX_SECTION_NODES and not _has_big_list(group):
            out.append(_Draft(group, ""))
        elif seg is not None:
            _divide(group, depth + 1, out)
        else:
            _split_flat(group, out)


def _has_big_list(nodes: Sequence[Node]) -> bool:
    items: dict[str, set[int]] = {}
    for n in nodes:
        if n.list_id is not None:
            items.setdefault(n.list_id, set()).add(n.item or 0)
    return any(len(v) >= MIN_LIST_ITEMS * 2 for v in items.values())


def _split_flat(nodes: Sequence[Node], out: list[_Draft]) -> None:
    """One landmark level: list runs become list sections, other runs split at headings."""
    runs: list[_Draft] = []
    for n in nodes:
        kind = f"list:{n.list_id}" if n.list_id is not None else ""
        last = runs[-1] if runs else None
        if last is not None and last.kind == kind and not (n.role == "heading" and not kind):
            last.nodes.append(n)
        else:
            runs.append(_Draft([n], kind))
    for r in runs:
        items = {n.item for n in r.nodes}
        if r.kind and len(items) >= LIST_SECTION_ITEMS:
            out.append(_Draft(r.nodes, "list"))
        else:
            for i in range(0, len(r.nodes), MAX_SECTION_NODES):
                out.append(_Draft(r.nodes[i : i + MAX_SECTION_NODES], ""))


def _top(node: Node) -> str:
    return _segments(node.landmark)[0] if node.landmark else ""


def _merge_small(drafts: list[_Draft]) -> list[_Draft]:
    """Crumbs (a lone link, a stray heading) join their neighbour inside the same top-level
    landmark while the result fits."""
    out: list[_Draft] = []
    for d in drafts:
        prev = out[-1] if out else None
        if (
            prev is not None
            and prev.kind == d.kind == ""
            and (prev.small or d.small)
            and len(prev.nodes) + len(d.nodes) <= MAX_SECTION_NODES
            and prev.nodes[-1].frame == d.nodes[0].frame
            and _top(prev.nodes[-1]) == _top(d.nodes[0])
        ):
            prev.nodes.extend(d.nodes)
        else:
            out.append(_Draft(list(d.nodes), d.kind))
    return out


def _title(kind: str, nodes: Sequence[Node], landmark: str, items: int) -> str:
    lm = _last_landmark(landmark)
    heading = next((n.name for n in nodes if n.role == "heading"), "") or nodes[0].heading
    heading = textcut.cut(heading, 60)
    if kind == "list":
        where = f' under "{heading}"' if heading else ""
        return f"list of {items} items{where}" + (f" in {lm}" if lm else "")
    if lm and heading:
        return f'{lm} — "{heading}"'
    if lm:
        return lm
    return f'"{heading}"' if heading else "page content"


def _split_items(section_id: str, nodes: Sequence[Node]) -> tuple[Section, ...]:
    by_item: dict[int, list[Node]] = {}
    for n in nodes:
        by_item.setdefault(n.item or 0, []).append(n)
    return tuple(
        Section(
            id=f"{section_id}.{i}",
            kind="item",
            title=textcut.cut(next((n.name for n in group if n.name), ""), 60),
            nodes=tuple(group),
            content_hash=content_hash(group),
        )
        for i, group in enumerate(by_item.values(), start=1)
    )


def divide(snapshot: Snapshot, *, modal_label: str | None = None) -> PageMem:
    """DividePage (seed 001 Algorithm 1) over snapshot nodes; deterministic for a DOM.

    `modal_label` comes from `detect_modal` (aria-modal / dialog:modal); without it a dialog
    section counts as modal when most in-view controls outside it are covered."""
    drafts: list[_Draft] = []
    if snapshot.nodes:
        _divide(snapshot.nodes, 0, drafts)
    sections: list[Section] = []
    for d in _merge_small(drafts):
        sid = f"s{len(sections) + 1}"
        landmark = _common_landmark(d.nodes)
        if d.kind == "dialog":
            landmark = _dialog_root(d.nodes[0].landmark) or landmark
        kind = d.kind or (_last_landmark(landmark).split(" ", 1)[0] or "content")
        items = _split_items(sid, d.nodes) if d.kind == "list" else ()
        title = _title(kind, d.nodes, landmark, len(items))
        sections.append(Section(sid, kind, title, tuple(d.nodes), items, content_hash(d.nodes)))
    sections = _mark_modal(sections, modal_label)
    return PageMem(snapshot.url, snapshot.title, snapshot.version, tuple(sections), snapshot)


def _mark_modal(sections: list[Section], modal_label: str | None) -> list[Section]:
    dialogs = [s for s in sections if s.kind == "dialog" and s.in_viewport]
    if not dialogs:
        return sections
    chosen: Section | None = None
    if modal_label is not None:
        label = modal_label.strip().lower()
        chosen = next((s for s in dialogs if label and label in s.title.lower()), dialogs[-1])
    else:
        outside = [
            n
            for s in sections
            if s.kind != "dialog"
            for n in s.nodes
            if n.interactive and n.in_viewport
        ]
        covered = sum(1 for n in outside if "covered" in n.states)
        if outside and covered * 2 >= len(outside):
            chosen = dialogs[-1]
    if chosen is None:
        return sections
    return [replace(s, modal=True) if s.id == chosen.id else s for s in sections]


def with_summaries(mem: PageMem, lookup: Callable[[str], str | None]) -> PageMem:
    """Attach cached summaries by content hash (unchanged section → same summary)."""
    sections = tuple(replace(s, summary=lookup(s.content_hash) or s.summary) for s in mem.sections)
    return replace(mem, sections=sections)


def lines_text(nodes: Sequence[Node], *, max_tokens: int | None = None, more: str = "") -> str:
    """Nodes as compact snapshot lines (same format and refs as compact mode), cut at the
    budget with an explicit marker saying what was left out and how to get it."""
    out: list[str] = []
    used = 0
    for i, n in enumerate(nodes):
        text = compact.line(n, text_cap=200)
        cost = tokens.count_tokens(text) + 1
        if max_tokens is not None and used + cost > max_tokens and out:
            out.append(f"… {len(nodes) - i} more lines{more}")
            break
        out.append(text)
        used += cost
    return "\n".join(out)


def section_text(mem: PageMem, section: Section, *, max_tokens: int | None = None) -> str:
    """Full content of one section (seed 001 A.3 'details string')."""
    return lines_text(section.nodes, max_tokens=max_tokens, more=f" (expand {section.id})")


def _header_line(s: Section) -> str:
    bits = [f"[{s.id}] {s.title}"]
    if s.interactive:
        bits.append(f"{s.interactive} controls")
    if not s.in_viewport:
        bits.append("off-screen")
    line = " · ".join(bits)
    return f"{line} — {s.summary}" if s.summary else line


def _list_preview(s: Section, max_tokens: int | None) -> str:
    shown = s.items[:LIST_PREVIEW_ITEMS]
    body = lines_text([n for item in shown for n in item.nodes], max_tokens=max_tokens)
    rest = len(s.items) - len(shown)
    return body + (f"\n… {rest} more items (expand {s.id})" if rest > 0 else "")


def render(
    snapshot: Snapshot | PageMem,
    *,
    expand: Iterable[str] | None = None,
    summaries: Mapping[str, str] | None = None,
    max_tokens: int = 1500,
) -> str:
    """PageMem observation text: an outline of every section, with full content for the
    expanded ones (default: sections in the viewport, within `max_tokens`). An open modal
    is shown alone (seed 001 App. A.4)."""
    mem = snapshot if isinstance(snapshot, PageMem) else divide(snapshot)
    if summaries:
        mem = with_summaries(mem, summaries.get)
    head = f"Page: {mem.title} — {mem.url}"
    modal = mem.modal
    if modal is not None:
        others = len(mem.sections) - 1
        body = section_text(mem, modal, max_tokens=max_tokens)
        note = f"(modal dialog open; {others} other sections are inert and hidden)"
        return f"{head}\n{note}\n{_header_line(modal)}\n{body}"
    wanted = set(expand) if expand is not None else {s.id for s in mem.sections if s.in_viewport}
    lines, budget = [head], max_tokens
    for s in mem.sections:
        lines.append(_header_line(s))
        if s.id not in wanted or budget <= 0:
            continue
        text = _list_preview(s, budget) if s.is_list else section_text(mem, s, max_tokens=budget)
        budget -= tokens.count_tokens(text)
        lines.append(text)
    return "\n".join(lines)
