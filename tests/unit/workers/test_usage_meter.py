"""The sink's usage meter: the task row's usage is read off the events it writes."""

from app.contracts import EventType
from workers.adapters.sink import UsageMeter
from workers.agent.loop.metered import Prices


def test_counts_steps_and_llm_calls_from_events() -> None:
    meter = UsageMeter()
    assert meter.saw(EventType.step_started, {"step": 1})
    assert meter.saw(EventType.llm_call, {"input_tokens": 120, "output_tokens": 7})
    assert not meter.saw(EventType.action_executed, {"step": 1, "action": "click"})
    assert meter.saw(EventType.step_started, {"step": 2})
    assert meter.saw(EventType.llm_call, {"input_tokens": 80, "output_tokens": None})
    usage = meter.usage
    assert (usage.steps, usage.llm_calls, usage.input_tokens, usage.output_tokens) == (
        2,
        2,
        200,
        7,
    )


def test_ignores_events_that_do_not_change_usage() -> None:
    meter = UsageMeter()
    assert not meter.saw(EventType.observation, {"step": 3})
    assert not meter.saw(EventType.step_started, {"step": "3"})  # malformed: not counted
    assert meter.usage.steps == 0 and meter.usage.llm_calls == 0


def test_prices_cost_a_call_by_its_model_else_by_its_roles_model() -> None:
    prices = Prices({"gpt-4o": (2.5, 10.0)}, fallback=lambda role: "mistral-small")
    assert prices.cost("worker", "gpt-4o-2024-08-06", 1_000_000, 100_000) == 3.5
    assert prices.cost("worker", "local-model", 10, 10) is None  # neither priced
    by_role = Prices({"gpt-4o-mini": (0.15, 0.6)}, fallback=lambda role: "gpt-4o-mini")
    assert by_role.cost("planner", "served-name", 1_000_000, 0) == 0.15
