"""`DbRouteStore`: the agent's RouteStore protocol over the `routes` table (issue 21).

Per tenant. Routes are read once at the start of a browser run (workers/agent/loop/loop.py) and
written once after the service's checks (workers/agent/replay/route_record.py, wired in
workers/jobs.py), each in its own short transaction; the task's secret values are masked in
what is written (a route never holds `secret=true` text to begin with).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import models
from app.db import repositories as repo
from workers.agent.memory.route_values import intent_key
from workers.agent.memory.routes import Route, RouteStep


class DbRouteStore:
    """RouteStore bound to a tenant (and the task that writes)."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        tenant_id: str,
        task_id: str | None = None,
        redact: Callable[[Any], Any] | None = None,
    ) -> None:
        self._sessions, self.tenant_id, self.task_id = sessions, tenant_id, task_id
        self._redact: Callable[[Any], Any] = redact or (lambda value: value)

    async def load_routes(self, domain: str) -> Sequence[Route]:
        if not domain:
            return []
        async with self._sessions() as s:
            rows = await repo.list_routes(s, tenant_id=self.tenant_id, domain=domain)
        return [route_from_row(r) for r in rows]

    async def save_route(self, route: Route) -> None:
        values = self._redact(
            {
                "intent": route.intent,
                "instruction": route.instruction,
                "slots": list(route.slots),
                "start": route.start,
                "steps": [s.to_dict() for s in route.steps],
            }
        )
        async with self._sessions() as s:
            await repo.save_route(
                s,
                tenant_id=self.tenant_id,
                domain=route.domain,
                intent_key=intent_key(route.intent),
                route_id=route.id,
                task_id=self.task_id,
                **values,
            )
            await s.commit()

    async def route_replayed(
        self, route_id: str, *, fell_back: bool = False, succeeded: bool = True
    ) -> None:
        async with self._sessions() as s:
            await repo.count_route_replay(
                s,
                tenant_id=self.tenant_id,
                route_id=route_id,
                fell_back=fell_back,
                succeeded=succeeded,
            )
            await s.commit()


def route_from_row(row: models.Route) -> Route:
    return Route(
        domain=row.domain,
        instruction=row.instruction,
        slots=tuple(int(i) for i in row.slots or ()),
        start=row.start,
        steps=tuple(RouteStep.from_dict(s) for s in row.steps or () if isinstance(s, dict)),
        id=row.id,
        version=row.version,
        replays=row.replays,
        fallbacks=row.fallbacks,
        successes=row.successes,
    )
