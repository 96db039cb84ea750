"""Modal focus (seed 001 App. A.4 CheckModal): while a modal dialog is open, the model sees
the dialog only, plus a one-line note that the page behind it is covered.

js/modal.js runs inside the main frame's snapshot walk (read-only), so every snapshot carries
its `Snapshot.modal`; `focus_text()` cuts a snapshot down to the dialog's lines, found through
PageMem's dialog section or, failing that, the dialog's box.
"""

from __future__ import annotations

from workers.browser.observe import pagemem
from workers.browser.observe.snapshot import Modal, Node, Snapshot

__all__ = ["Modal", "dialog_nodes", "focus_text", "note"]


def _inside(n: Node, box: tuple[float, float, float, float]) -> bool:
    x, y, w, h = box
    nx, ny, nw, nh = n.bbox
    cx, cy = nx + nw / 2, ny + nh / 2
    return n.frame == () and x <= cx <= x + w and y <= cy <= y + h


def dialog_nodes(snap: Snapshot, modal: Modal) -> tuple[Node, ...]:
    """The dialog's snapshot nodes: PageMem's modal section, else nodes inside its box."""
    mem = pagemem.divide(snap, modal_label=modal.label)
    if mem.modal is not None:
        return mem.modal.nodes
    return tuple(n for n in snap.nodes if n.in_viewport and _inside(n, modal.box))


def note(modal: Modal, hidden_controls: int) -> str:
    name = f' "{modal.label}"' if modal.label else ""
    return (
        f"(modal dialog{name} is open and covers the page; {hidden_controls} controls behind "
        "it are inert and not shown — close or complete the dialog to reach them)"
    )


def focus_text(snap: Snapshot, modal: Modal, *, max_tokens: int) -> str | None:
    """Compact observation of the dialog alone, or None if its content cannot be located."""
    nodes = dialog_nodes(snap, modal)
    if not nodes:
        return None
    keep = {n.index for n in nodes}
    hidden = sum(1 for n in snap.nodes if n.interactive and n.index not in keep)
    body = pagemem.lines_text(nodes, max_tokens=max_tokens)
    return f"Page: {snap.title} — {snap.url}\n{note(modal, hidden)}\n{body}"
