"""What a run cost (the viewer, `GET /v1/tasks` and `GET /v1/tasks/{id}`): each `llm.call`
event priced by its model.

Prices come from `WEBAGENT_LLM_PRICES` (USD per 1M input / output tokens), matched like the
per-task budget does (workers/adapters/budget.py): the exact model name, else the longest configured
prefix. An event that already carries `cost_usd` keeps it. Without prices the cost is
unknown (shown as a dash), never zero.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.contracts import EventType
from app.db.models import TaskEvent

PER_TOKENS = 1_000_000
Prices = Mapping[str, tuple[float, float]]


def price_of(prices: Prices, model: str) -> tuple[float, float] | None:
    if model in prices:
        return prices[model]
    matches = [name for name in prices if model.startswith(name)]
    return prices[max(matches, key=len)] if matches else None


def call_cost(prices: Prices, data: Mapping[str, Any]) -> float | None:
    """USD of one `llm.call` payload, or None when its model has no price."""
    given = data.get("cost_usd")
    if isinstance(given, int | float) and not isinstance(given, bool):
        return float(given)
    price = price_of(prices, str(data.get("model") or ""))
    if price is None:
        return None
    tokens_in = int(data.get("input_tokens") or 0)
    tokens_out = int(data.get("output_tokens") or 0)
    return (tokens_in * price[0] + tokens_out * price[1]) / PER_TOKENS


async def run_costs(
    s: AsyncSession, *, task_ids: Sequence[str], prices: Prices
) -> dict[str, float | None]:
    """task id -> total USD of its model calls; None when a call could not be priced."""
    totals: dict[str, float | None] = {task_id: 0.0 for task_id in task_ids}
    if not task_ids:
        return totals
    stmt = select(TaskEvent.task_id, TaskEvent.data).where(
        TaskEvent.task_id.in_(list(task_ids)), TaskEvent.type == EventType.llm_call.value
    )
    for task_id, data in await s.execute(stmt):
        cost = call_cost(prices, data or {})
        total = totals.get(task_id)
        totals[task_id] = None if cost is None or total is None else total + cost
    return totals
