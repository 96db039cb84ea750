"""MeteredLLM: perception's LLM calls become llm.call events the sink's meter counts."""

from __future__ import annotations

import pytest

from app.contracts import EventType
from workers.adapters.sink import UsageMeter
from workers.agent.errors import LLMUnavailable
from workers.agent.loop.metered import MeteredLLM
from workers.agent.protocols import LLMReply
from workers.agent.testing import FakeLLM, RecordingSink


async def test_each_call_is_emitted_with_its_figures_and_counted() -> None:
    answer = LLMReply('{"sections": ["s1"]}', (), 321, 12, "small-model", 0.4567, "stop")
    inner, sink = FakeLLM([answer, answer]), RecordingSink()
    llm = MeteredLLM(inner, sink)
    got = await llm.chat("summarizer", [{"role": "user", "content": "pick sections"}])
    await llm.chat("vision", [{"role": "user", "content": "boxes"}])

    assert got is answer and inner.roles == ["summarizer", "vision"]
    calls = sink.of_type(EventType.llm_call)
    assert calls[0] == {
        "step": None,
        "role": "summarizer",
        "model": "small-model",
        "input_tokens": 321,
        "output_tokens": 12,
        "latency_s": 0.457,
        "finish_reason": "stop",
        "tool_calls": 0,
        "content": '{"sections": ["s1"]}',
        "reasoning": None,
    }
    assert calls[1]["role"] == "vision"
    assert (llm.usage.calls, llm.usage.input_tokens) == (2, 642)
    meter = UsageMeter()
    for type, data in sink.events:
        meter.saw(type, data)
    assert (meter.usage.llm_calls, meter.usage.input_tokens, meter.usage.output_tokens) == (
        2,
        642,
        24,
    )


async def test_a_failed_call_emits_nothing_and_propagates() -> None:
    sink = RecordingSink()
    llm = MeteredLLM(FakeLLM([LLMUnavailable("down")]), sink)
    with pytest.raises(LLMUnavailable):
        await llm.chat("summarizer", [{"role": "user", "content": "x"}])
    assert sink.events == []


async def test_assistant_text_and_reasoning_are_recorded_capped() -> None:
    long = "x" * 5000
    answer = LLMReply("final words", (), 10, 2, "m", 0.1, "stop", reasoning=long)
    sink = RecordingSink()
    await MeteredLLM(FakeLLM([answer], side={}), sink, step=7).chat("planner", [])
    call = sink.of_type(EventType.llm_call)[0]
    assert (call["step"], call["content"]) == (7, "final words")
    assert call["reasoning"].startswith("xxx") and len(call["reasoning"]) == 2001


def test_reasoning_is_read_from_the_message_or_its_extra_fields() -> None:
    from types import SimpleNamespace

    from workers.llm.client import _reasoning

    assert _reasoning(SimpleNamespace(reasoning_content="because")) == "because"
    extra = SimpleNamespace(reasoning_content=None, model_extra={"reasoning": "since"})
    assert _reasoning(extra) == "since"
    assert _reasoning(SimpleNamespace(model_extra=None)) is None


async def test_response_format_is_passed_on_only_when_set() -> None:
    answer = LLMReply("ok", (), 1, 1, "m", 0.0, "stop")

    class NoResponseFormat:  # an LLM whose chat has no response_format argument
        async def chat(self, role, messages, tools=None, tool_choice=None) -> LLMReply:
            return answer

    plain = MeteredLLM(NoResponseFormat(), RecordingSink())  # type: ignore[arg-type]
    assert await plain.chat("worker", [{"role": "user", "content": "go"}]) is answer
    inner = FakeLLM([answer])
    schema = {"type": "json_object"}
    await MeteredLLM(inner, RecordingSink()).chat("worker", [], response_format=schema)
    assert inner.calls[0][2] == schema
