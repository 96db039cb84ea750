"""Divide-and-conquer observation and cached section summaries with a scripted LLM."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tests.unit.browser.test_pagemem import n, shop_nodes, snap
from workers.agent.protocols import LLMReply
from workers.browser.observe import pagemem
from workers.browser.observe.observe_pipeline import ObservePipeline
from workers.browser.observe.summaries import SummaryCache, parse_json, summarize


class ScriptedLLM:
    """Answers by prompt kind; records every prompt it saw."""

    def __init__(self, answer: Callable[[str], str]) -> None:
        self.answer = answer
        self.prompts: list[tuple[str, str]] = []

    async def chat(
        self,
        role: str,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | None = None,
    ) -> LLMReply:
        text = str(messages[-1]["content"])
        self.prompts.append((role, text))
        return LLMReply(self.answer(text), (), 10, 2, "scripted", 0.0)


def kind(prompt: str) -> str:
    if "summarise sections" in prompt:
        return "summaries"
    if "Which sections" in prompt:
        return "select"
    if "Which items" in prompt:
        return "items"
    if "extract the facts" in prompt:
        return "extract"
    return "summary"


def shop_answer(prompt: str) -> str:
    k = kind(prompt)
    if k == "summaries":
        ids = [line.split("]")[0][1:] for line in prompt.splitlines() if line.startswith("[s")]
        return "```json\n" + json.dumps({i: f"Summary of {i}." for i in ids}) + "\n```"
    if k == "select":
        return '{"sections": ["s3", "s99"]}'
    if k == "items":
        return '{"items": [2, 3, 40], "done": true}'
    if k == "extract":
        return "Product 1 and Product 2 are listed."
    return "The results list shows Product 1 [1:9] and Product 2 [1:10]."


def test_parse_json_variants() -> None:
    assert parse_json('sure: {"a": [1, 2,],}') == {"a": [1, 2]}
    assert parse_json("```json\n[1, 2]\n```") == [1, 2]
    assert parse_json("no json here") is None
    assert parse_json(None) is None


async def test_summaries_are_cached_by_content_hash() -> None:
    llm = ScriptedLLM(shop_answer)
    cache = SummaryCache()
    mem = pagemem.divide(snap(shop_nodes()))
    out = await summarize(mem, llm, cache)
    assert all(s.summary == f"Summary of {s.id}." for s in out.sections)
    assert len(llm.prompts) == 1 and llm.prompts[0][0] == "summarizer"
    again = await summarize(pagemem.divide(snap(shop_nodes())), llm, cache)
    assert len(llm.prompts) == 1  # unchanged sections: no new call
    assert [s.summary for s in again.sections] == [s.summary for s in out.sections]


async def test_pipeline_selects_extracts_and_summarises(monkeypatch) -> None:
    monkeypatch.setattr(pagemem, "MAX_SECTION_NODES", 6)
    llm = ScriptedLLM(shop_answer)
    pipe = ObservePipeline(llm, chunk_items=5)
    mem = pagemem.divide(snap(shop_nodes()))
    assert mem.section("s3") is not None and mem.section("s3").is_list  # type: ignore[union-attr]
    result = await pipe.run(snap(shop_nodes()), "buy product 1")
    assert result.selected == ("s3",)
    kinds = [kind(p) for _, p in llm.prompts]
    assert kinds == ["summaries", "select", "items", "extract", "summary"]  # done=true stops
    assert "Product 1 and Product 2" in llm.prompts[-1][1]
    assert result.summary.startswith("The results list")
    assert '[1:8] link "Product 1"' in result.text and '[1:9] link "Product 2"' in result.text
    assert "Product 0" not in result.text and "Product 3" not in result.text
    assert "Other sections:" in result.text
    assert result.llm_calls == 5 and result.input_tokens == 50
    # same task, same page: summaries and the extraction are reused
    again = await pipe.run(snap(shop_nodes()), "buy product 1")
    assert [kind(p) for _, p in llm.prompts[5:]] == ["select", "items", "summary"]
    assert again.llm_calls == 3


async def test_modal_bypasses_selection() -> None:
    llm = ScriptedLLM(shop_answer)
    nodes = [
        n(1, "link", "Home", states=("covered",)),
        n(2, "textbox", "Email", landmark='dialog "Sign in"'),
    ]
    result = await ObservePipeline(llm).run(snap(nodes), "sign in", summarize_sections=False)
    assert result.modal and result.selected == ("s2",)
    assert [kind(p) for _, p in llm.prompts] == ["extract", "summary"]
    assert "modal dialog open" in result.text and "Home" not in result.text


async def test_bad_selection_reply_falls_back_to_viewport_sections() -> None:
    llm = ScriptedLLM(lambda p: "I am not sure." if kind(p) == "select" else "ok")
    result = await ObservePipeline(llm).run(snap(shop_nodes()[:5]), "t", summarize_sections=False)
    assert result.selected == ("s1", "s2")
