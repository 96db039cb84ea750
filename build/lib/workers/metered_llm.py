"""An LLM wrapper that reports every call as an `llm.call` event.

Perception (the pipeline's summarizer, the vision tier) calls the LLM outside the agent loop,
which only reports the Worker's own calls; wrapping the LLM handed to PageSession makes those
calls visible to watchers and counted in the task's usage by the sink's meter.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from app.contracts import EventType
from workers.agent.protocols import LLM, EventSink, LLMReply


class MeteredLLM:
    """LLM protocol: delegates to `llm`, then emits the reply's figures through `sink`."""

    def __init__(self, llm: LLM, sink: EventSink) -> None:
        self.llm, self.sink = llm, sink

    async def chat(
        self,
        role: str,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | None = None,
    ) -> LLMReply:
        reply = await self.llm.chat(role, messages, tools=tools, tool_choice=tool_choice)
        await self.sink.emit(
            EventType.llm_call,
            {
                "step": None,  # perception, not a Worker step
                "role": role,
                "model": reply.model,
                "input_tokens": reply.input_tokens,
                "output_tokens": reply.output_tokens,
                "latency_s": round(reply.latency_s, 3),
                "finish_reason": reply.finish_reason,
            },
        )
        return reply
