"""One-line LLM section summaries for PageMem (seed 001 §2.2, App. A.1.3), cached by content.

A section keeps its summary while its content hash is unchanged, so re-observing a page
only pays for sections that changed. The LLM is injected (role "summarizer").
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Sequence
from importlib import resources
from string import Template
from typing import Any

from workers.agent import textcut
from workers.agent.loop.metered import LLMUsage as Usage
from workers.agent.protocols import LLM
from workers.browser.observe import pagemem
from workers.browser.observe.pagemem import PageMem, Section

SECTION_CHARS = 1200  # what one section contributes to the summary prompt


def prompt(name: str) -> Template:
    """Prompt templates shipped in workers/browser/prompts."""
    text = resources.files("workers.browser.observe").joinpath("prompts", name).read_text("utf-8")
    return Template(text)


def parse_json(text: str | None) -> Any:
    """First JSON object/array in a reply (fenced or wrapped in prose); None if there is none."""
    if not text:
        return None
    fenced = re.findall(r"```(?:json)?\s*(.*?)```", text, re.S)
    for blob in [*fenced, text]:
        for opener, closer in (("{", "}"), ("[", "]")):
            start, end = blob.find(opener), blob.rfind(closer)
            if 0 <= start < end:
                try:
                    return json.loads(re.sub(r",\s*([\]}])", r"\1", blob[start : end + 1]))
                except json.JSONDecodeError:
                    continue
    return None


class SummaryCache:
    """content_hash → summary, least recently used out first."""

    def __init__(self, max_entries: int = 4096) -> None:
        self._data: OrderedDict[str, str] = OrderedDict()
        self._max = max_entries

    def get(self, content_hash: str) -> str | None:
        value = self._data.get(content_hash)
        if value is not None:
            self._data.move_to_end(content_hash)
        return value

    def put(self, content_hash: str, summary: str) -> None:
        self._data[content_hash] = summary
        self._data.move_to_end(content_hash)
        while len(self._data) > self._max:
            self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)


def _section_block(mem: PageMem, s: Section) -> str:
    body = pagemem.section_text(mem, s, max_tokens=SECTION_CHARS // 4)
    return f"[{s.id}] {s.title}\n{body}"


async def summarize(
    mem: PageMem,
    llm: LLM,
    cache: SummaryCache,
    *,
    batch: int = 8,
    role: str = "summarizer",
    usage: Usage | None = None,
) -> PageMem:
    """Fill summaries: cached ones by hash, the rest in batched calls (one JSON reply each)."""
    mem = pagemem.with_summaries(mem, cache.get)
    todo: Sequence[Section] = [s for s in mem.sections if not s.summary]
    template = prompt("section_summaries.txt")
    for i in range(0, len(todo), batch):
        chunk = todo[i : i + batch]
        text = template.safe_substitute(
            title=mem.title,
            url=mem.url,
            sections="\n\n".join(_section_block(mem, s) for s in chunk),
        )
        reply = await llm.chat(role, [{"role": "user", "content": text}])
        if usage is not None:
            usage.add(reply)
        data = parse_json(reply.content)
        if not isinstance(data, dict):
            continue
        for s in chunk:
            line = data.get(s.id)
            if isinstance(line, str) and line.strip():
                cache.put(s.content_hash, textcut.cut(" ".join(line.split()), 200))
    return pagemem.with_summaries(mem, cache.get)
