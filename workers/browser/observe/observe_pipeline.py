"""Divide-and-conquer observation (seed 001 §2.4, App. A.3-A.4) for small models.

PageMem sections (with cached one-line summaries) → the LLM selects task-relevant sections
(an open modal bypasses selection) → details are extracted per section (lists first go
through chunked item selection) → one paragraph page summary. The observation text is that
summary plus the controls of the selected sections, so the agent can act with the same refs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from workers.agent.protocols import LLM
from workers.browser.observe import pagemem
from workers.browser.observe.pagemem import PageMem, Section
from workers.browser.observe.snapshot import Node, Snapshot
from workers.browser.observe.summaries import SummaryCache, Usage, parse_json, prompt, summarize

ROLE = "summarizer"


@dataclass(frozen=True)
class PipelineResult:
    text: str  # the observation handed to the acting model
    summary: str
    selected: tuple[str, ...]
    modal: bool
    llm_calls: int
    input_tokens: int
    output_tokens: int


def _one_line(nodes: Sequence[Node]) -> str:
    return pagemem.lines_text(nodes, max_tokens=60).replace("\n", " | ")


class ObservePipeline:
    """One per task: extraction cache lives for the task (seed 001 A.3 'summary caching')."""

    def __init__(
        self,
        llm: LLM,
        *,
        summaries: SummaryCache | None = None,
        max_sections: int = 4,
        chunk_items: int = 15,
        detail_tokens: int = 1200,
        controls_tokens: int = 800,
    ) -> None:
        self.llm = llm
        self.summaries = summaries if summaries is not None else SummaryCache()
        self.max_sections = max_sections
        self.chunk_items = chunk_items
        self.detail_tokens = detail_tokens
        self.controls_tokens = controls_tokens
        self._extractions: dict[str, str] = {}

    async def _ask(self, text: str, usage: Usage) -> str:
        reply = await self.llm.chat(ROLE, [{"role": "user", "content": text}])
        usage.add(reply)
        return reply.content or ""

    async def select_sections(
        self, mem: PageMem, task: str, history: str, usage: Usage
    ) -> list[Section]:
        """Prompt E.1: pick relevant sections from the outline; viewport ones on a bad reply."""
        if mem.modal is not None:
            return [mem.modal]  # seed 001 A.4 CheckModal: the dialog is the only section
        outline = "\n".join(
            f"[{s.id}] {s.title}" + (f" — {s.summary}" if s.summary else "") for s in mem.sections
        )
        text = prompt("select_sections.txt").safe_substitute(
            task=task,
            history=f"History: {history}" if history else "",
            title=mem.title,
            url=mem.url,
            sections=outline,
            limit=self.max_sections,
        )
        data = parse_json(await self._ask(text, usage))
        ids = data.get("sections") if isinstance(data, dict) else data
        chosen = [s for i in ids or [] if (s := mem.section(str(i))) is not None]
        if not chosen:
            chosen = [s for s in mem.sections if s.in_viewport]
        return chosen[: self.max_sections]

    async def select_items(self, s: Section, task: str, usage: Usage) -> list[Section]:
        """SelectListItems (seed 001 Algorithm 6): chunk by chunk, stop once `done`.
        The early-termination decision rides in the same reply instead of a second call."""
        picked: list[Section] = []
        for start in range(0, len(s.items), self.chunk_items):
            chunk = s.items[start : start + self.chunk_items]
            listing = "\n".join(
                f"{start + k + 1}. {_one_line(item.nodes)}" for k, item in enumerate(chunk)
            )
            text = prompt("select_items.txt").safe_substitute(
                task=task,
                title=s.title,
                start=start + 1,
                end=start + len(chunk),
                total=len(s.items),
                items=listing,
            )
            data = parse_json(await self._ask(text, usage))
            if not isinstance(data, dict):
                continue
            for number in data.get("items") or []:
                if isinstance(number, int) and start < number <= start + len(chunk):
                    picked.append(s.items[number - 1])
            if data.get("done") is True:
                break
        return picked

    async def extract(
        self, mem: PageMem, s: Section, task: str, usage: Usage
    ) -> tuple[str, tuple[Node, ...]]:
        """LLMExtractDetails, cached on the details string for the task's lifetime; returns
        the notes and the section's nodes (a list keeps only its selected items' nodes)."""
        nodes = s.nodes
        if s.is_list:
            items = await self.select_items(s, task, usage)
            nodes = tuple(node for item in items for node in item.nodes)
            details = (
                "\n".join(
                    f"{k}. " + pagemem.lines_text(i.nodes, max_tokens=120)
                    for k, i in enumerate(items, start=1)
                )
                or "(no relevant items)"
            )
        else:
            details = pagemem.section_text(mem, s, max_tokens=self.detail_tokens)
        key = hashlib.sha1(f"{task}\u0000{details}".encode()).hexdigest()
        if key not in self._extractions:
            text = prompt("extract_details.txt").safe_substitute(
                task=task, title=s.title, details=details
            )
            self._extractions[key] = (await self._ask(text, usage)).strip()
        return self._extractions[key], nodes

    async def run(
        self,
        snapshot: Snapshot,
        task: str,
        *,
        history: str = "",
        modal_label: str | None = None,
        summarize_sections: bool = True,
    ) -> PipelineResult:
        usage = Usage()
        mem = pagemem.divide(snapshot, modal_label=modal_label)
        if summarize_sections:
            mem = await summarize(mem, self.llm, self.summaries, role=ROLE, usage=usage)
        selected = await self.select_sections(mem, task, history, usage)
        notes: list[str] = []
        controls: list[Node] = []
        for s in selected:
            note, nodes = await self.extract(mem, s, task, usage)
            notes.append(f"[{s.id}] {s.title}: {note}")
            controls.extend(n for n in nodes if n.interactive)
        text = prompt("page_summary.txt").safe_substitute(
            task=task, title=mem.title, url=mem.url, extractions="\n".join(notes)
        )
        summary = (await self._ask(text, usage)).strip()
        return PipelineResult(
            text=self._observation(mem, selected, controls, summary),
            summary=summary,
            selected=tuple(s.id for s in selected),
            modal=mem.modal is not None,
            llm_calls=usage.calls,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
        )

    def _observation(
        self, mem: PageMem, selected: Sequence[Section], controls: Sequence[Node], summary: str
    ) -> str:
        """Summary, the selected sections' controls, and the other sections as titles only."""
        chosen = {s.id for s in selected}
        others = [f"[{s.id}] {s.title}" for s in mem.sections if s.id not in chosen]
        parts = [f"Page: {mem.title} — {mem.url}", summary]
        if mem.modal is not None:
            parts.append("(modal dialog open; the page behind it is inert)")
        if controls:
            parts.append(
                "Controls:\n" + pagemem.lines_text(controls, max_tokens=self.controls_tokens)
            )
        if others:
            parts.append("Other sections: " + "; ".join(others))
        return "\n\n".join(p for p in parts if p)
