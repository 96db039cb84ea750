"""What the Planner judges a claim by (issue 27 item 5 = issue 26 item 16).

The Planner used to see `read_text(...) -> ok` and never the text, so it refused correct
answers until the Worker copied them into `record_fact`. `EvidenceLog` keeps the quoted
results of the run's latest read tools (the page-reading set of grounding.READING:
read_text, read_download, dom_search, look, ...), each cut to ITEM_CHARS on a grapheme
boundary, the latest MAX_ITEMS of them; the Planner's verification request carries them
inside an untrusted fence, with the latest screenshot when the Worker reads images
(roles/planner.py). Page text is data there, as everywhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from workers.agent import textcut
from workers.agent.context.history import ExecutedCall
from workers.agent.judge.grounding import READING, result_texts

MAX_ITEMS = 4  # the latest read results the Planner sees
ITEM_CHARS = 1500  # characters of one result
ARG_CHARS = 60


@dataclass(frozen=True)
class Evidence:
    step: int
    call: str  # read_text(ref=3:4)
    text: str


def _call(ex: ExecutedCall) -> str:
    assert ex.action is not None
    args = ", ".join(
        f"{k}={textcut.clip(str(v), ARG_CHARS)}" for k, v in sorted(ex.action.args.items())
    )
    return f"{ex.action.name}({args})"


class EvidenceLog:
    """The latest read-tool results of a run, each once."""

    def __init__(self) -> None:
        self.items: list[Evidence] = []
        self._seen: set[tuple[int, str, str]] = set()

    def add(self, step: int, executed: Sequence[ExecutedCall]) -> None:
        for ex in executed:
            if ex.action is None or not ex.result.success:
                continue
            if ex.action.name == "bulk" and ex.result.data.get("reads"):  # issue 31 item 4
                parts = [str(ex.result.data["reads"])]  # its reads, not its echoes
            elif ex.action.name in READING:
                parts = [ex.result.reason or "", *result_texts(ex.result.data)]
            else:
                continue
            text = "\n".join(p for p in parts if p.strip())
            item = Evidence(step, _call(ex), textcut.clip(text, ITEM_CHARS))
            key = (item.step, item.call, item.text)
            if not text or key in self._seen:
                continue
            self._seen.add(key)
            self.items = [*self.items, item][-MAX_ITEMS:]

    def render(self) -> str:
        """The results as the Planner reads them (empty when the run read nothing)."""
        return "\n\n".join(f"step {e.step}: {e.call} ->\n{e.text}" for e in self.items)
