"""workers/adapters/budget.py: prices by model prefix, the crossing call reported then refused."""

from __future__ import annotations

import pytest

from app.contracts import ErrorCode
from workers.adapters.budget import Budget, BudgetedLLM, BudgetExceeded, BudgetLimits, price_of
from workers.agent.errors import ConfigurationError
from workers.agent.protocols import LLMReply
from workers.agent.testing import FakeLLM, RecordingSink

PRICES = {"gpt-4o": (2.5, 10.0), "gpt-4o-mini": (0.15, 0.6)}


def _reply(tokens_in: int, tokens_out: int, model: str = "gpt-4o-2024-08-06") -> LLMReply:
    return LLMReply("ok", (), tokens_in, tokens_out, model, 0.01, "stop")


def test_price_is_the_exact_name_else_the_longest_prefix() -> None:
    assert price_of(PRICES, "gpt-4o-mini") == (0.15, 0.6)
    assert price_of(PRICES, "gpt-4o-mini-2024-07-18") == (0.15, 0.6)
    assert price_of(PRICES, "gpt-4o-2024-08-06") == (2.5, 10.0)
    assert price_of(PRICES, "llama3") is None


def test_cost_is_per_million_tokens_in_and_out() -> None:
    budget = Budget(BudgetLimits(max_cost_usd=1.0), PRICES)
    budget.add("worker", _reply(200_000, 10_000))
    assert budget.cost_usd == pytest.approx(0.5 + 0.1)
    assert budget.exceeded() is None
    budget.add("worker", _reply(200_000, 10_000))
    spent = budget.exceeded()
    assert spent is not None and spent.budget == "max_cost_usd"
    assert spent.code == ErrorCode.budget_exceeded


async def test_the_crossing_call_is_reported_and_the_next_never_sent() -> None:
    llm = FakeLLM([_reply(600, 50), _reply(600, 50), _reply(600, 50)], side={})
    sink = RecordingSink()
    budgeted = BudgetedLLM(llm, Budget(BudgetLimits(max_tokens=1000)), sink)
    await budgeted.chat("worker", [{"role": "user", "content": "hi"}])
    assert sink.of_type("llm.call") == []  # under budget: the metering wrapper reports it
    with pytest.raises(BudgetExceeded, match="max_tokens=1000"):
        await budgeted.chat("worker", [{"role": "user", "content": "hi"}])
    assert [c["input_tokens"] for c in sink.of_type("llm.call")] == [600]
    with pytest.raises(BudgetExceeded):
        await budgeted.chat("worker", [{"role": "user", "content": "hi"}])
    assert len(llm.calls) == 2  # refused before the third call went out


def test_a_cost_budget_needs_a_price_for_every_role_model() -> None:
    budget = Budget(BudgetLimits(max_cost_usd=1.0), PRICES, fallback_model=lambda r: "llama3")
    with pytest.raises(ConfigurationError, match="WEBAGENT_LLM_PRICES"):
        budget.check_prices(("worker",))
    Budget(BudgetLimits(max_tokens=10), {}, fallback_model=lambda r: "llama3").check_prices(
        ("worker",)
    )
