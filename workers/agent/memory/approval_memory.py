"""Which actions of a site needed a person's approval (issue 34 "dead ends that can be
wrong": say it before the action, not after the wait).

When the supervised browser (workers/agent/people/supervised.py) asks a person about an
action, it remembers the action and the element it touched (`click` on `button "Send
request"`) as a learning of the host (`approvals`, per tenant). A later run on that host sees
the mark on the element's line of its observation, where it picks its next tool call:

    [4:7] button "Send request"  (needed a person's approval last time: click)

so the model can plan for the wait (or for a refusal) before it acts. Only element labels and
tool names are kept, never typed text; a label is page text, shown inside the observation's
untrusted fence like the rest of the page.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

APPROVALS = "approvals"  # the domain learning's key
MAX_APPROVALS = 30  # remembered per host, newest first
_LINE = re.compile(r'^(\s*)\[(\d+:\d+)\]\s+([\w-]+)(?:\s+("(?:[^"\\]|\\.)*"))?')


@dataclass(frozen=True)
class AskedBefore:
    """One action a person was asked about on a host."""

    action: str  # the tool: click, type, fill_form, ...
    target: str  # `button "Send request"` as the observation writes it
    decision: str = ""  # approved | denied | expired

    def to_dict(self) -> dict[str, str]:
        return {"action": self.action, "target": self.target, "decision": self.decision}


def remembered(learnings: Mapping[str, Any]) -> tuple[AskedBefore, ...]:
    """The host's remembered approvals (malformed rows ignored)."""
    rows = learnings.get(APPROVALS)
    if not isinstance(rows, list):
        return ()
    out = []
    for row in rows[:MAX_APPROVALS]:
        if isinstance(row, Mapping) and row.get("action") and row.get("target"):
            out.append(
                AskedBefore(str(row["action"]), str(row["target"]), str(row.get("decision", "")))
            )
    return tuple(out)


def with_asked(rows: Sequence[AskedBefore], asked: AskedBefore) -> list[dict[str, str]]:
    """The learning's new value: `asked` first, one row per (action, target)."""
    kept = [r for r in rows if (r.action, r.target) != (asked.action, asked.target)]
    return [r.to_dict() for r in (asked, *kept)][:MAX_APPROVALS]


def label_of(page_text: str, ref: str) -> str:
    """`role "name"` of the element with this ref in an observation ('' when absent)."""
    for line in page_text.splitlines():
        m = _LINE.match(line)
        if m and m.group(2) == ref:
            return f"{m.group(3)} {m.group(4)}" if m.group(4) else ""
    return ""


def annotate(text: str, asked: Iterable[AskedBefore]) -> str:
    """Observation text with the mark on each line of an element a person was asked about."""
    by_target: dict[str, list[str]] = {}
    for a in asked:
        by_target.setdefault(a.target, []).append(a.action)
    if not by_target:
        return text
    out = []
    for line in text.split("\n"):
        m = _LINE.match(line)
        label = f"{m.group(3)} {m.group(4)}" if m and m.group(4) else ""
        actions = by_target.get(label)
        if actions:
            line += f"  (needed a person's approval last time: {', '.join(actions)})"
        out.append(line)
    return "\n".join(out)
