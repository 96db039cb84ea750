"""An LLM wrapper that meters every model call once and reports it as one `llm.call` event.

Every role (orchestrator, planner, worker, summarizer) and perception (the pipeline's
summarizer, the vision tier) calls the model through a MeteredLLM, so each call is counted in
exactly one place and its `llm.call` payload is built by `llm_call_payload` alone. The payload
carries the figures, the assistant's text and its reasoning (both capped) so a run's
reasoning can be read back from its events. `Prices` turns a call's tokens into USD
(WEBAGENT_LLM_PRICES: USD per 1M input / output tokens by model name or prefix); the task's
event sink adds it to the `llm.call` event and to `webagent_llm_cost_usd_total`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.contracts import EventType
from workers.agent import textcut
from workers.agent.protocols import LLM, EventSink, LLMReply, response_format_arg

TEXT_CHARS = 2000  # assistant text / reasoning kept in an event
PER_TOKENS = 1_000_000  # prices are USD per this many tokens


@dataclass(frozen=True)
class Prices:
    """USD per 1M (input, output) tokens by model; `fallback` maps a role to its configured
    model, for servers that answer with a model name nobody priced."""

    table: Mapping[str, tuple[float, float]]
    fallback: Callable[[str], str] = field(default=str)

    def of(self, model: str) -> tuple[float, float] | None:
        """Exact name, else the longest configured prefix ("gpt-4o" prices "gpt-4o-2024-08-06")."""
        if model in self.table:
            return self.table[model]
        matches = [name for name in self.table if model.startswith(name)]
        return self.table[max(matches, key=len)] if matches else None

    def cost(self, role: str, model: str, input_tokens: int, output_tokens: int) -> float | None:
        """USD of one call, or None when neither its model nor its role's model is priced."""
        price = self.of(model) or self.of(self.fallback(role))
        if price is None:
            return None
        return (input_tokens * price[0] + output_tokens * price[1]) / PER_TOKENS


@dataclass
class LLMUsage:
    """Running totals of the calls that went through one MeteredLLM."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    def add(self, reply: LLMReply) -> None:
        self.calls += 1
        self.input_tokens += reply.input_tokens
        self.output_tokens += reply.output_tokens


def _capped(text: str | None) -> str | None:
    if not text:
        return None
    return textcut.clip(text, TEXT_CHARS + 1)


def llm_call_payload(role: str, reply: LLMReply, step: int | None) -> dict[str, Any]:
    """The one builder of the `llm.call` event body."""
    return {
        "step": step,
        "role": role,
        "model": reply.model,
        "input_tokens": reply.input_tokens,
        "output_tokens": reply.output_tokens,
        "latency_s": round(reply.latency_s, 3),
        "finish_reason": reply.finish_reason,
        "tool_calls": len(reply.tool_calls),
        "content": _capped(reply.content),
        "reasoning": _capped(reply.reasoning),
    }


class MeteredLLM:
    """LLM protocol: delegates to `llm`, counts the reply and emits it through `sink`.

    `step` is the agent step the next calls belong to (None outside the loop: perception).
    """

    def __init__(self, llm: LLM, sink: EventSink, step: int | None = None) -> None:
        self.llm, self.sink = llm, sink
        self.step = step
        self.usage = LLMUsage()

    async def chat(
        self,
        role: str,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | None = None,
        response_format: Mapping[str, Any] | None = None,
    ) -> LLMReply:
        extra = response_format_arg(response_format)
        reply = await self.llm.chat(role, messages, tools=tools, tool_choice=tool_choice, **extra)
        self.usage.add(reply)
        await self.sink.emit(EventType.llm_call, llm_call_payload(role, reply, self.step))
        return reply
