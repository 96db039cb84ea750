"""Seed 004 §3.4 adaptive memory: window W=5, chunked distillation, immediate failure reflection."""

from __future__ import annotations

import re
from typing import Any

from workers.agent.context.memory import SUMMARIZER, AdaptiveMemory, MemoryConfig
from workers.agent.context.views import render_worker, worker_view
from workers.agent.errors import LLMUnavailable
from workers.agent.memory.ledger import Ledger, StepOutcome
from workers.agent.protocols import LLMReply
from workers.agent.testing import FakeLLM

URL = "https://s.test/"


def text(content: str) -> LLMReply:
    return LLMReply(content, (), 50, 20, "fake-summarizer", 0.01, "stop")


def step(n: int, ok: bool = True) -> StepOutcome:
    error = None if ok else "no_effect"
    outcome = "ok" if ok else "failed no_effect"
    return StepOutcome(n, URL, (f"click(ref={n}:1) -> {outcome}",), success=ok, error=error)


def last_prompt(llm: FakeLLM) -> str:
    return str(llm.prompts[-1][-1]["content"])


async def test_no_call_while_steps_fit_the_window() -> None:
    llm = FakeLLM([])
    memory = AdaptiveMemory(llm, Ledger(goal="g"))
    for n in range(1, 10):  # W + chunk - 1 = 9 steps stay raw
        update = await memory.add(step(n))
        assert update.calls == 0
    assert llm.roles == [] and [s.step for s in memory.window] == list(range(1, 10))


async def test_a_full_chunk_leaving_the_window_is_distilled_recursively() -> None:
    llm = FakeLLM([text("M1: opened the list"), text("M2: list opened, sorted")])
    ledger = Ledger(goal="buy a kettle")
    memory = AdaptiveMemory(llm, ledger)
    updates = [await memory.add(step(n)) for n in range(1, 16)]
    assert updates[9].distilled == (1, 2, 3, 4, 5)
    assert updates[14].distilled == (6, 7, 8, 9, 10)
    assert llm.roles == [SUMMARIZER, SUMMARIZER]
    first, second = str(llm.prompts[0][-1]["content"]), last_prompt(llm)
    assert f"step 5 from {URL}: click(ref=5:1)" in first and "step 6 from" not in first
    assert "M1: opened the list" in second  # M_k = G(M_{k-1}; B_k, E_k)
    assert ledger.summary == "M2: list opened, sorted"
    assert [s.step for s in memory.window] == list(range(11, 16))
    assert [n.kind for n in ledger.episodic] == ["summary", "summary"]


async def test_every_failure_is_reflected_at_once_and_kept_until_distilled() -> None:
    llm = FakeLLM([text("The Buy button is covered by a cookie banner."), text("M1")])
    ledger = Ledger(goal="g")
    memory = AdaptiveMemory(llm, ledger, MemoryConfig(window=2, chunk=2))
    update = await memory.add(step(1, ok=False))
    assert update.reflected and update.calls == 1
    assert "step 1 failed: The Buy button is covered" in ledger.summary
    assert "Error: no_effect" in last_prompt(llm)
    assert ledger.episodic[-1].kind == "reflection"
    await memory.add(step(2))
    await memory.add(step(3))
    await memory.add(step(4))  # window 2 + chunk 2 reached: steps 1-2 distilled
    assert "step 1 failed: The Buy button" in last_prompt(llm)  # E_k goes into G
    assert ledger.summary == "M1"


async def test_summarizer_failure_keeps_the_raw_lines() -> None:
    llm = FakeLLM([LLMUnavailable("down")])
    ledger = Ledger(goal="g")
    memory = AdaptiveMemory(llm, ledger, MemoryConfig(window=1, chunk=1))
    await memory.add(step(1))
    update = await memory.add(step(2))
    assert update.distilled == (1,)
    assert f"step 1 from {URL}: click(ref=1:1) -> ok" in ledger.summary


async def test_summary_is_capped() -> None:
    llm = FakeLLM([text("x" * 5000)])
    ledger = Ledger(goal="g")
    memory = AdaptiveMemory(llm, ledger, MemoryConfig(window=1, chunk=1, summary_chars=100))
    await memory.add(step(1))
    await memory.add(step(2))
    assert len(ledger.summary) == 100


async def test_worker_view_shows_window_steps_older_than_recent() -> None:
    llm: Any = FakeLLM([])
    ledger = Ledger(goal="g")
    memory = AdaptiveMemory(llm, ledger)
    for n in range(1, 7):
        ledger.record_step(step(n))
        await memory.add(step(n))
    view = worker_view(ledger, URL, memory.window)
    assert [s.step for s in view.earlier] == [1, 2, 3]
    assert [s.step for s in view.recent] == [4, 5, 6]
    rendered = render_worker(view)
    assert re.search(r"step 3\b.*step 4\b", rendered, re.S)  # the window's step before them


def noted(n: int, ok: bool = True, evaluation: str = "", memory: str = "") -> StepOutcome:
    """A step with the Worker's notes of its turn (its evaluation judges the step before)."""
    base = step(n, ok)
    return StepOutcome(
        n, URL, base.actions, success=ok, error=base.error, evaluation=evaluation, memory=memory
    )


async def test_in_the_brain_a_failures_reflection_is_the_workers_next_evaluation() -> None:
    """Issue 33: no summarizer call; the failure is in the summary at once with the tool's
    reason, then with the Worker's own evaluation of it (seed 004 §3.4 in the Worker turn)."""
    llm = FakeLLM([])
    ledger = Ledger(goal="g")
    memory = AdaptiveMemory(llm, ledger, MemoryConfig(summarizer_calls=False))
    failed = StepOutcome(
        1,
        URL,
        ("click -> failed",),
        success=False,
        error="no_effect",
        reason="the click changed nothing",
    )
    update = await memory.add(failed)
    assert update.reflected and update.calls == 0
    assert "step 1 failed (no_effect): the click changed nothing" in ledger.summary
    await memory.add(noted(2, evaluation="Failed: a cookie banner covers the Buy button"))
    assert "step 1 failed: Failed: a cookie banner covers the Buy button" in ledger.summary
    assert "changed nothing" not in ledger.summary
    assert ledger.episodic[-1].kind == "reflection" and llm.calls == []


async def test_in_the_brain_a_chunk_is_distilled_into_the_workers_memory() -> None:
    llm = FakeLLM([text("M-summarizer")])
    ledger = Ledger(goal="g")
    config = MemoryConfig(window=2, chunk=2, summarizer_calls=False)
    memory = AdaptiveMemory(llm, ledger, config)
    await memory.add(step(1, ok=False))
    for n in (2, 3):
        await memory.add(noted(n, memory=f"M{n}: list open, Aurora 49 EUR"))
    update = await memory.add(noted(4, memory="M4: list open, Aurora 49 EUR, sorted"))
    assert update.distilled == (1, 2) and update.calls == 0 and llm.calls == []
    assert ledger.summary.startswith("M4: list open, Aurora 49 EUR, sorted")
    assert "step 1 failed" in ledger.summary  # E_k kept beside the Worker's memory
    # a Worker that wrote no memory on that step: the summarizer distills the chunk
    await memory.add(noted(5))
    update = await memory.add(noted(6))
    assert update.calls == 1 and llm.roles == [SUMMARIZER] and ledger.summary == "M-summarizer"
