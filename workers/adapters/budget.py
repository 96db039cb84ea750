"""Per-task budgets for model use: `max_tokens` and `max_cost_usd` (issue 13, scenario 5).

Steps and wall time are bounded by the loop (`max_steps`) and the job (`timeout_s`); tokens
and cost are bounded here, around the task's one model client, so every role and perception
call counts. Cost is priced per model from `WEBAGENT_LLM_PRICES` (USD per 1M input / output
tokens, e.g. '{"gpt-4o": [2.5, 10]}'); a reply's model is matched exactly, then by the longest
configured prefix ("gpt-4o" prices "gpt-4o-2024-08-06"), then by the role's configured model.

The call that crosses a budget is still reported (its `llm.call` event, so the task's usage
is complete) and then `BudgetExceeded` ends the run: the task fails with error
`budget_exceeded` and a reason naming the budget. No action runs on that call's answer.
A cost budget with a model that has no price is a configuration error at the start, not a
silently unenforced limit.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from app.contracts import ErrorCode, EventType, TaskSpec
from app.settings import Role, Settings
from workers.agent.errors import AgentError, ConfigurationError
from workers.agent.loop.metered import llm_call_payload
from workers.agent.protocols import LLM, EventSink, LLMReply, response_format_arg

PER_TOKENS = 1_000_000
Prices = Mapping[str, tuple[float, float]]


class BudgetExceeded(AgentError):
    """A per-task model budget ran out: the run ends cleanly, the budget named."""

    code = ErrorCode.budget_exceeded

    def __init__(self, budget: str, message: str) -> None:
        super().__init__(message)
        self.budget = budget


def price_of(prices: Prices, model: str) -> tuple[float, float] | None:
    """(USD per 1M input, per 1M output) for `model`: exact name, else longest prefix."""
    if model in prices:
        return prices[model]
    matches = [name for name in prices if model.startswith(name)]
    return prices[max(matches, key=len)] if matches else None


@dataclass(frozen=True)
class BudgetLimits:
    max_tokens: int | None = None
    max_cost_usd: float | None = None

    @property
    def any(self) -> bool:
        return self.max_tokens is not None or self.max_cost_usd is not None


@dataclass
class Budget:
    """Running totals of one task against its limits."""

    limits: BudgetLimits
    prices: Prices = field(default_factory=dict)
    fallback_model: Callable[[str], str] = str  # role -> its configured model
    tokens: int = 0
    cost_usd: float = 0.0

    def check_prices(self, roles: Sequence[str]) -> None:
        """A cost budget needs a price for every role's model (ConfigurationError if not)."""
        if self.limits.max_cost_usd is None:
            return
        missing = sorted(
            {
                self.fallback_model(r)
                for r in roles
                if price_of(self.prices, self.fallback_model(r)) is None
            }
        )
        if missing:
            raise ConfigurationError(
                f"max_cost_usd needs a price for {', '.join(missing)}: add it to "
                'WEBAGENT_LLM_PRICES (USD per 1M input/output tokens, e.g. {"gpt-4o": [2.5, 10]})'
            )

    def add(self, role: str, reply: LLMReply) -> None:
        self.tokens += reply.input_tokens + reply.output_tokens
        price = price_of(self.prices, reply.model) or price_of(
            self.prices, self.fallback_model(role)
        )
        if price is not None:
            usd_in, usd_out = price
            cost = reply.input_tokens * usd_in + reply.output_tokens * usd_out
            self.cost_usd += cost / PER_TOKENS

    def exceeded(self) -> BudgetExceeded | None:
        limits = self.limits
        if limits.max_tokens is not None and self.tokens >= limits.max_tokens:
            return BudgetExceeded(
                "max_tokens",
                f"token budget exceeded: {self.tokens} tokens used, max_tokens={limits.max_tokens}",
            )
        if limits.max_cost_usd is not None and self.cost_usd >= limits.max_cost_usd:
            return BudgetExceeded(
                "max_cost_usd",
                f"cost budget exceeded: ${self.cost_usd:.4f} spent, "
                f"max_cost_usd={limits.max_cost_usd}",
            )
        return None


class BudgetedLLM:
    """LLM protocol: refuses calls once the budget is spent and stops at the crossing call."""

    def __init__(self, llm: LLM, budget: Budget, sink: EventSink) -> None:
        self.llm, self.budget, self.sink = llm, budget, sink

    async def chat(
        self,
        role: str,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | None = None,
        response_format: Mapping[str, Any] | None = None,
    ) -> LLMReply:
        spent = self.budget.exceeded()
        if spent is not None:
            raise spent
        extra = response_format_arg(response_format)
        reply = await self.llm.chat(role, messages, tools=tools, tool_choice=tool_choice, **extra)
        self.budget.add(role, reply)
        spent = self.budget.exceeded()
        if spent is not None:
            # the metering wrapper above never sees this reply: report it here
            await self.sink.emit(EventType.llm_call, llm_call_payload(role, reply, None))
            raise spent
        return reply


ROLES: tuple[Role, ...] = ("orchestrator", "planner", "worker", "summarizer")


def for_task(settings: Settings, spec: TaskSpec) -> Budget:
    """The task's budget with the operator's prices; roles fall back to their models."""

    def model_of(role: str) -> str:
        known: tuple[str, ...] = (*ROLES, "vision")
        return settings.model_for(role) if role in known else settings.llm_model  # type: ignore[arg-type]

    limits = BudgetLimits(max_tokens=spec.max_tokens, max_cost_usd=spec.max_cost_usd)
    return Budget(limits, dict(settings.llm_prices), fallback_model=model_of)


def budgeted(llm: LLM, budget: Budget, sink: EventSink) -> LLM:
    """`llm` behind the budget when the task has one (unchanged otherwise)."""
    return BudgetedLLM(llm, budget, sink) if budget.limits.any else llm


def roles_in_use(settings: Settings) -> tuple[str, ...]:
    return (*ROLES, "vision") if settings.vision_enabled else ROLES
