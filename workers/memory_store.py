"""`DbMemoryStore`: the agent's MemoryStore protocol over the app's tables (seed 000 §5.2).

One store per task. The Ledger snapshot (`ledgers`) is rewritten on each update; steps
(`ledger_steps`), facts and episodic notes (`episodic_notes`) are append-only; dead ends are
kept per domain (`dead_ends`) and loaded into the next task on that domain, as are the
domain's learnings (`domain_learnings`). Every call is its own short transaction, so a run
cut off mid-way keeps everything recorded before the cut; `GET /v1/tasks/{id}/ledger`
(app/api/ledger.py) serves these rows back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import models
from app.db import repositories as repo
from workers.agent.ledger import DEAD_END_CAUSES, DeadEnd, EpisodicNote, Fact, StepOutcome

DOMAIN_DEAD_ENDS = 200  # the newest dead ends of a domain a new task starts with


class DbMemoryStore:
    """MemoryStore bound to (task_id, tenant_id); sessions come from the worker runtime."""

    def __init__(
        self, sessions: async_sessionmaker[AsyncSession], *, task_id: str, tenant_id: str
    ) -> None:
        self._sessions = sessions
        self.task_id, self.tenant_id = task_id, tenant_id

    async def save_ledger(self, snapshot: Mapping[str, Any]) -> None:
        async with self._sessions() as s:
            await repo.save_ledger(
                s, task_id=self.task_id, tenant_id=self.tenant_id, data=dict(snapshot)
            )
            await s.commit()

    async def append_step(self, outcome: StepOutcome) -> None:
        async with self._sessions() as s:
            await repo.add_ledger_step(
                s,
                task_id=self.task_id,
                tenant_id=self.tenant_id,
                step=outcome.step,
                data=asdict(outcome),
            )
            await s.commit()

    async def append_fact(self, fact: Fact, domain: str) -> None:
        async with self._sessions() as s:
            await repo.add_fact(
                s,
                task_id=self.task_id,
                tenant_id=self.tenant_id,
                domain=domain or None,
                key=fact.key,
                category=fact.category,
                text=fact.value,
                confidence=fact.confidence,
                source_step=fact.source_step,
            )
            await s.commit()

    async def append_episodic(self, note: EpisodicNote) -> None:
        async with self._sessions() as s:
            await repo.add_episodic_note(
                s,
                task_id=self.task_id,
                tenant_id=self.tenant_id,
                text=note.text,
                step=note.step,
                kind=note.kind,
            )
            await s.commit()

    async def record_dead_end(self, domain: str, dead_end: DeadEnd) -> None:
        async with self._sessions() as s:
            await repo.add_dead_end(
                s,
                task_id=self.task_id,
                tenant_id=self.tenant_id,
                domain=domain or dead_end.domain or None,
                url=dead_end.url,
                cause=dead_end.cause,
                description=dead_end.description,
                signature=dead_end.signature or None,
                step=dead_end.step,
            )
            await s.commit()

    async def load_domain_dead_ends(self, domain: str) -> Sequence[DeadEnd]:
        if not domain:
            return []
        async with self._sessions() as s:
            rows = await repo.list_dead_ends(
                s, tenant_id=self.tenant_id, domain=domain, limit=DOMAIN_DEAD_ENDS, newest=True
            )
        return [dead_end_from_row(r) for r in rows]

    async def load_domain_learnings(self, domain: str) -> Mapping[str, Any]:
        if not domain:
            return {}
        async with self._sessions() as s:
            return await repo.get_domain_learnings(s, tenant_id=self.tenant_id, domain=domain)

    async def record_learning(self, domain: str, key: str, value: Any) -> None:
        if not domain:
            return
        async with self._sessions() as s:
            await repo.put_domain_learning(
                s, tenant_id=self.tenant_id, domain=domain, key=key, value=value
            )
            await s.commit()


def dead_end_from_row(row: models.DeadEnd) -> DeadEnd:
    cause = row.cause if row.cause in DEAD_END_CAUSES else "generic"
    return DeadEnd(
        description=row.description or row.cause,
        url=row.url,
        cause=cause,  # type: ignore[arg-type]
        step=row.step or 0,
        signature=row.signature or "",
    )
