"""Adaptive memory, seed 004 §3.4: Chunked Recursive Summarization plus Failure Reflection.

A sliding window of the last W = 5 steps stays verbatim. Steps leaving it are distilled, one
chunk B_k of `chunk` steps per summarizer call, into the running summary

    M_k = G(M_{k-1}; B_k, E_k)                                          (seed 004 eq. 3)

where G is the summarizer model (called through the LLM protocol with role "summarizer")
and E_k the failure reflections gathered since the last distillation. Failure Reflection:
every failed step is summarised by the model at once and shows up in the summary right away,
so an error is never lost even before its chunk is distilled.

Steps that left the window but wait for their chunk stay in `window` (W to W + chunk - 1
raw steps are visible), so no step is ever invisible. The summary lives in `Ledger.summary`
(the views render it); each distilled summary and each reflection is also an episodic note
(kinds "summary" and "reflection") so the persisted trajectory keeps every version.
A summarizer that fails (endpoint down, refusal) never ends the run: the chunk is folded in
as plain step lines instead.

In the brain (`BrainConfig.summarizer_calls`, False by default; issue 33) G is the Worker's
own model in the Worker's own turn, no call of its own: the Worker writes seed 003 §6.3's
notes every step, and the
prompt asks its `memory` to be the running summary (values found, choices made, failed
approaches) and its `evaluation_previous_goal` to say why a step failed. A failed step is in
the summary at once with the tool's own reason, and its reflection is the Worker's next
evaluation of it (the LLM's summary of the error, one call later, while the step is still
in the window); a chunk leaving the window is distilled into the Worker's latest `memory`
(written after it saw that chunk), with the reflections gathered since. When the Worker
wrote no memory on that step, the summarizer is called as above.
"""

from __future__ import annotations

import logging
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.logredact import REGISTRY
from workers.agent import prompts, textcut
from workers.agent.context.views import render_step
from workers.agent.errors import LLMError
from workers.agent.memory.ledger import Ledger, StepOutcome
from workers.agent.protocols import LLM

log = logging.getLogger(__name__)

SUMMARIZER = "summarizer"
REASON_CHARS = 300  # the tool's reason shown to the reflection


@dataclass(frozen=True)
class MemoryConfig:
    window: int = 5  # W (seed 004 §3.4 default)
    chunk: int = 5  # steps folded in per summarizer call
    summary_words: int = 150
    summary_chars: int = 1500  # hard cap on M_k, whatever the model returns
    summarizer_calls: bool = True  # False: G is the Worker's turn (the brain's default)


@dataclass(frozen=True)
class MemoryUpdate:
    """What one `add` did: steps distilled into the summary, whether it reflected a failure."""

    distilled: tuple[int, ...] = ()
    reflected: bool = False
    calls: int = 0


def failure_reason(outcome: StepOutcome) -> str:
    """The failed tool's own reason for the reflection prompt: one line, secret values
    masked (app/logredact.py, the values a task's vault registered), capped."""
    line = REGISTRY.redact(" ".join(outcome.reason.split()))
    if not line:
        return "(none given)"
    return textcut.clip(line, REASON_CHARS)


def _capped(text: str, limit: int) -> str:
    text = text.strip()
    return text if len(text) <= limit else "…" + text[-(limit - 1) :]


class AdaptiveMemory:
    """One per run; writes `ledger.summary` and the summary / reflection episodic notes."""

    def __init__(self, llm: LLM, ledger: Ledger, config: MemoryConfig | None = None) -> None:
        self.llm, self.ledger = llm, ledger
        self.config = config or MemoryConfig()
        self._window: deque[StepOutcome] = deque()
        self._base = ledger.summary  # M_{k-1}
        self._reflections: list[str] = []  # E_k
        self._unreflected: tuple[int, StepOutcome] | None = None  # (index in E_k, step)

    @property
    def window(self) -> tuple[StepOutcome, ...]:
        return tuple(self._window)

    def window_lines(self) -> list[str]:
        return [render_step(s) for s in self._window]

    async def add(self, outcome: StepOutcome) -> MemoryUpdate:
        """Take one finished step: reflect on it if it failed, distill a full chunk."""
        self._window.append(outcome)
        calls, reflected = 0, False
        if not self.config.summarizer_calls:
            self._worker_reflects(outcome)
        if not outcome.success:
            if self.config.summarizer_calls:
                calls += await self._reflect(outcome)
            else:
                self._reflect_from_tool(outcome)
            reflected = True
        distilled: tuple[int, ...] = ()
        if len(self._window) >= self.config.window + self.config.chunk:
            chunk = [self._window.popleft() for _ in range(self.config.chunk)]
            if self.config.summarizer_calls or not outcome.memory.strip():
                calls += await self._distill(chunk, outcome.step)
            else:
                self._fold(chunk, outcome)
            distilled = tuple(s.step for s in chunk)
        return MemoryUpdate(distilled, reflected, calls)

    def _reflect_from_tool(self, outcome: StepOutcome) -> None:
        """At once: the failed step with the tool's reason; the Worker's next evaluation
        replaces it (`_worker_reflects`)."""
        line = (
            f"step {outcome.step} failed ({outcome.error or 'failed'}): {failure_reason(outcome)}"
        )
        self._unreflected = (len(self._reflections), outcome)
        self._reflections.append(line)
        self._publish()

    def _worker_reflects(self, outcome: StepOutcome) -> None:
        """The Worker's evaluation of the failed step before this one is its reflection."""
        pending, self._unreflected = self._unreflected, None
        evaluation = " ".join(outcome.evaluation.split())
        if pending is None or not evaluation or pending[1].step != outcome.step - 1:
            return
        index, failed = pending
        if index < len(self._reflections):
            reflection = textcut.clip(REGISTRY.redact(evaluation), REASON_CHARS)
            self._reflections[index] = f"step {failed.step} failed: {reflection}"
            self.ledger.note(reflection, failed.step, "reflection")
            self._publish()

    def _fold(self, chunk: Sequence[StepOutcome], latest: StepOutcome) -> None:
        """M_k from the Worker's latest `memory` (written after it saw the chunk) and E_k."""
        memory = REGISTRY.redact(" ".join(latest.memory.split()))
        text = "\n".join(filter(None, [memory, *self._reflections]))
        self._base = _capped(text, self.config.summary_chars)
        self._reflections, self._unreflected = [], None
        self._publish()
        first, last = chunk[0].step, chunk[-1].step
        self.ledger.note(f"steps {first}-{last} distilled: {self._base}", latest.step, "summary")

    async def _reflect(self, outcome: StepOutcome) -> int:
        prompt = prompts.render(
            "memory_reflect.md",
            goal=self.ledger.goal,
            step=render_step(outcome),
            error=outcome.error or "unknown",
            reason=failure_reason(outcome),
        )
        text, calls = await self._ask(prompt)
        reflection = " ".join((text or f"{render_step(outcome)} failed").split())
        line = f"step {outcome.step} failed: {reflection}"
        self._reflections.append(line)
        self.ledger.note(reflection, outcome.step, "reflection")
        self._publish()
        return calls

    async def _distill(self, chunk: Sequence[StepOutcome], step: int) -> int:
        lines = [render_step(s) for s in chunk]
        prompt = prompts.render(
            "memory_distill.md",
            goal=self.ledger.goal,
            summary=self._base or "(empty)",
            reflections="\n".join(self._reflections) or "(none)",
            steps="\n".join(lines),
            words=self.config.summary_words,
        )
        text, calls = await self._ask(prompt)
        if text is None:  # G unavailable: keep the chunk and its reflections verbatim
            text = "\n".join(filter(None, [self._base, *self._reflections, *lines]))
        self._base = _capped(text, self.config.summary_chars)
        self._reflections = []
        self._publish()
        first, last = chunk[0].step, chunk[-1].step
        self.ledger.note(f"steps {first}-{last} distilled: {self._base}", step, "summary")
        return calls

    async def _ask(self, prompt: str) -> tuple[str | None, int]:
        messages: list[Mapping[str, Any]] = [
            {"role": "system", "content": prompts.load("memory_system.md").strip()},
            {"role": "user", "content": prompt},
        ]
        try:
            reply = await self.llm.chat(SUMMARIZER, messages)
        except LLMError as exc:
            log.warning("summarizer call failed, keeping raw lines: %s", exc)
            return None, 1
        return (reply.content or "").strip() or None, 1

    def _publish(self) -> None:
        """M_k plus the reflections not yet distilled, as the Ledger's summary slot."""
        text = "\n".join(filter(None, [self._base, *self._reflections]))
        self.ledger.summary = _capped(text, self.config.summary_chars)
