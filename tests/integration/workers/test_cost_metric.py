"""`webagent_llm_cost_usd_total` by model and tenant (issue 23 §9): /metrics had tokens but
no money. The sink prices each llm.call it writes (WEBAGENT_LLM_PRICES), adds `cost_usd` to
the event and counts it; a model without a price adds nothing."""

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.contracts import EventType
from app.events import MemoryEventBus
from tests.integration.workers.conftest import new_task
from tests.integration.workers.test_jobs import stored_events
from workers.adapters.sink import DbEventSink
from workers.agent.loop.metered import Prices

pytestmark = pytest.mark.both_databases

Sessions = async_sessionmaker[AsyncSession]


def cost(model: str, tenant: str) -> float:
    value = REGISTRY.get_sample_value(
        "webagent_llm_cost_usd_total", {"model": model, "tenant": tenant}
    )
    return value or 0.0


async def test_priced_calls_are_counted_by_model_and_tenant(sessions: Sessions) -> None:
    task_id = await new_task(sessions)
    prices = Prices({"gpt-4o": (2.5, 10.0)}, fallback=lambda role: "unpriced")
    sink = DbEventSink(sessions, MemoryEventBus(), task_id, "acme", prices=prices)
    before = cost("gpt-4o-2024-08-06", "acme")
    call = {"role": "worker", "model": "gpt-4o-2024-08-06", "step": 1}
    await sink.emit(EventType.llm_call, {**call, "input_tokens": 200_000, "output_tokens": 50_000})
    await sink.emit(EventType.llm_call, {**call, "model": "local", "input_tokens": 9})
    await sink.flush()
    assert abs(cost("gpt-4o-2024-08-06", "acme") - before - 1.0) < 1e-9  # 0.5 + 0.5 USD
    assert cost("local", "acme") == 0.0
    events = [e for e in await stored_events(sessions, task_id) if e.type == "llm.call"]
    assert events[0].data["cost_usd"] == 1.0 and "cost_usd" not in events[1].data
