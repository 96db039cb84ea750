"""`DbMemoryStore`: the agent's MemoryStore protocol over the app's tables (seed 000 §5.2).

One store per task. The Ledger snapshot (`ledgers`) is rewritten on each update; steps
(`ledger_steps`), facts and episodic notes (`episodic_notes`) are append-only; each dead end
is the run's own row (`dead_ends`) and is counted into its site's row (`site_dead_ends`,
one per page + action, with first/last seen and an expiry by cause) that later runs entering
the domain load while it has not expired; learnings (`domain_learnings`) carry the runs that
wrote them. Every write is its own short transaction, run
behind the agent loop in submission order (workers/adapters/write_behind.py: the loop does not wait
for its rows; `flush()` does, and the job flushes before it finishes the task) and retried
across a short database outage like the events; a write that fails for good is raised by
the next write or `flush()`. `GET /v1/tasks/{id}/ledger` (app/api/ledger.py) serves these
rows back.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import asdict
from datetime import UTC, datetime
from functools import partial
from typing import Any

from sqlalchemy.exc import IntegrityError, SQLAlchemyError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import models, repo_guides
from app.db import repositories as repo
from workers.adapters.outage import retry_outage
from workers.adapters.write_behind import WriteBehind
from workers.agent.memory.ledger import (
    DEAD_END_CAUSES,
    DeadEnd,
    EpisodicNote,
    Fact,
    StepOutcome,
    page_of,
)
from workers.agent.memory.site_memory import dead_end_expiry
from workers.agent.protocols import Guide

DOMAIN_DEAD_ENDS = 200  # the newest dead ends of a domain a new task starts with


class DbMemoryStore:
    """MemoryStore bound to (task_id, tenant_id); sessions come from the worker runtime."""

    def __init__(
        self,
        sessions: async_sessionmaker[AsyncSession],
        *,
        task_id: str,
        tenant_id: str,
        redact: Callable[[Any], Any] | None = None,
    ) -> None:
        self._sessions = sessions
        # every row is written with the task's secret values masked (workers/adapters/secrets.py)
        self._redact: Callable[[Any], Any] = redact or (lambda value: value)
        self.task_id, self.tenant_id = task_id, tenant_id
        self._writes = WriteBehind(f"ledger {task_id}", (SQLAlchemyError, OSError))
        self.now: Callable[[], datetime] = lambda: datetime.now(UTC)  # expiry clock (tests)

    async def flush(self) -> None:
        """Return once every write so far is committed; raise one that failed."""
        await self._writes.flush()

    async def settle(self) -> None:
        """`flush()` at the end of a run: a failed write is logged, not raised."""
        await self._writes.settle()

    def _later(self, what: str, write: Callable[..., Awaitable[object]], **values: Any) -> None:
        """Queue `write(session, task_id=, tenant_id=, **values)` + commit as one transaction,
        retried across an outage (the values are taken now, not when it runs), with the
        task's secret values masked."""
        values = {k: self._redact(v) for k, v in values.items()}

        async def once(retry: int) -> None:
            try:
                async with self._sessions() as s:
                    await write(s, task_id=self.task_id, tenant_id=self.tenant_id, **values)
                    await s.commit()
            except IntegrityError:
                if retry == 0:
                    raise  # a retried write whose commit had gone through is done

        self._writes.submit(partial(retry_outage, once, f"{self.task_id} {what}"))

    async def save_ledger(self, snapshot: Mapping[str, Any]) -> None:
        self._later("ledger", repo.save_ledger, data=dict(snapshot))

    async def append_step(self, outcome: StepOutcome) -> None:
        self._later("step", repo.add_ledger_step, step=outcome.step, data=asdict(outcome))

    async def append_fact(self, fact: Fact, domain: str, url: str = "") -> None:
        self._later(
            "fact",
            repo.add_fact,
            domain=domain or None,
            key=fact.key,
            category=fact.category,
            text=fact.value,
            confidence=fact.confidence,
            source_step=fact.source_step,
            url=url or None,
        )

    async def append_episodic(self, note: EpisodicNote) -> None:
        self._later("note", repo.add_episodic_note, text=note.text, step=note.step, kind=note.kind)

    async def record_dead_end(self, domain: str, dead_end: DeadEnd) -> None:
        domain = domain or dead_end.domain
        self._later(
            "dead end",
            repo.add_dead_end,
            domain=domain or dead_end.domain or None,
            url=dead_end.url,
            cause=dead_end.cause,
            description=dead_end.description,
            signature=dead_end.signature or None,
            step=dead_end.step,
        )
        if not domain:
            return
        seen = self.now()

        async def count(s: AsyncSession, **values: Any) -> None:  # the site's row, per tenant
            await repo.record_site_dead_end(s, seen=seen, **values)

        self._later(
            "site dead end",
            count,
            domain=domain,
            key=dead_end_key(dead_end),
            page=page_of(dead_end.url),
            url=dead_end.url,
            cause=dead_end.cause,
            description=dead_end.description,
            signature=dead_end.signature or None,
            target=dead_end.target or None,
            expires_at=dead_end_expiry(dead_end.cause, seen),
            fingerprint=dead_end.state or None,
        )

    async def load_domain_dead_ends(self, domain: str) -> Sequence[DeadEnd]:
        """The domain's dead ends that have not expired, most recently seen first."""
        if not domain:
            return []
        await self.flush()  # reads see this task's own writes
        async with self._sessions() as s:
            rows = await repo.list_site_dead_ends(
                s, tenant_id=self.tenant_id, domain=domain, now=self.now(), limit=DOMAIN_DEAD_ENDS
            )
        return [site_dead_end_from_row(r) for r in rows]

    async def load_domain_learnings(self, domain: str) -> Mapping[str, Any]:
        if not domain:
            return {}
        await self.flush()  # reads see this task's own writes
        async with self._sessions() as s:
            return await repo.get_domain_learnings(s, tenant_id=self.tenant_id, domain=domain)

    async def load_site_map(self, domain: str) -> Mapping[str, Any]:
        """The tenant's newest WebsiteMem of the domain (site exploration), {} when none."""
        if not domain:
            return {}
        async with self._sessions() as s:
            row = await repo.latest_website_mem(s, tenant_id=self.tenant_id, domain=domain)
        return dict(row.data) if row is not None else {}

    async def record_learning(self, domain: str, key: str, value: Any) -> None:
        if not domain:
            return
        tenant, task = self.tenant_id, self.task_id

        async def put(s: AsyncSession, **_: object) -> None:  # a learning is per tenant
            await repo.put_domain_learning(
                s,
                tenant_id=tenant,
                domain=domain,
                key=key,
                value=self._redact(value),
                task_id=task,
            )

        self._later("learning", put)

    async def load_guides(self, domain: str) -> Sequence[Guide]:
        """The operator's guides for `domain` and for every site of the tenant."""
        async with self._sessions() as s:
            rows = await repo_guides.list_guides(
                s, tenant_id=self.tenant_id, domain=domain or "", with_global=True
            )
        return [Guide(title=r.title, body=r.body, domain=r.domain or "") for r in rows]


def dead_end_key(dead_end: DeadEnd) -> str:
    """The site row a dead end counts into: its page and its action."""
    page, action = dead_end.key
    return hashlib.sha256(f"{page}\n{action}".encode()).hexdigest()


def site_dead_end_from_row(row: models.SiteDeadEnd) -> DeadEnd:
    cause = row.cause if row.cause in DEAD_END_CAUSES else "generic"
    return DeadEnd(
        description=row.description or row.cause,
        url=row.url,
        cause=cause,  # type: ignore[arg-type]
        signature=row.signature or "",
        target=row.target or "",
        count=row.count,
        earlier=True,
        state=row.fingerprint or "",
    )


def dead_end_from_row(row: models.DeadEnd) -> DeadEnd:
    cause = row.cause if row.cause in DEAD_END_CAUSES else "generic"
    return DeadEnd(
        description=row.description or row.cause,
        url=row.url,
        cause=cause,  # type: ignore[arg-type]
        step=row.step or 0,
        signature=row.signature or "",
    )
