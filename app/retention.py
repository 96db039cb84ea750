"""Retention: tasks older than their tenant's retention are deleted with all their data.

`WEBAGENT_RETENTION_DAYS` (0: keep forever, the default) applies to every tenant;
`WEBAGENT_RETENTION_DAYS_BY_TENANT` ('{"acme": 30, "audit": 0}') overrides it per tenant (0
keeps that tenant's tasks). A task expires `days` after it finished; live tasks never do.

The pruner runs next to the liveness reaper wherever that runs: in the API process of the
embedded deployment and of the API-only deployment, and in every `webagent worker`
supervisor, so it runs with or without Redis. Several pruners may run at once: each deletes
in small batches, a batch another pruner deleted first simply counts 0 rows, and on
Postgres whole event partitions are dropped by one pruner at a time (app/db/partitions.py).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from app import metrics
from app.db import partitions
from app.db.repo_retention import (
    NOTHING,
    Deleted,
    delete_tasks,
    existing_task_ids,
    expired_task_ids,
)
from app.db.types import utcnow
from app.settings import Settings
from app.store import ArtifactStore
from app.store.records import TASKS_PREFIX, delete_task_blobs

log = logging.getLogger(__name__)

SessionFactory = Callable[[], Any]  # async_sessionmaker[AsyncSession]
BATCH = 200  # tasks per delete transaction: short locks, bounded memory


@dataclass(frozen=True)
class RetentionPolicy:
    """Days a finished task is kept: the default for every tenant and per-tenant overrides
    (0 keeps forever). `longest_task_s` bounds how long after its events a task can finish."""

    days: int = 0
    by_tenant: dict[str, int] = field(default_factory=dict)
    interval_s: float = 3600.0
    longest_task_s: float = 86400.0

    @classmethod
    def of(cls, settings: Settings) -> RetentionPolicy:
        return cls(
            days=settings.retention_days,
            by_tenant=dict(settings.retention_days_by_tenant),
            interval_s=settings.retention_interval_s,
            longest_task_s=settings.max_timeout_s,
        )

    @property
    def enabled(self) -> bool:
        return self.days > 0 or any(d > 0 for d in self.by_tenant.values())

    def keeps_everything_after(self, now: datetime) -> datetime | None:
        """The oldest cutoff of all tenants, when every tenant has a retention (else None:
        some tenant keeps its events forever, so no whole partition may go)."""
        if self.days <= 0 or any(d <= 0 for d in self.by_tenant.values()):
            return None
        longest = max([self.days, *self.by_tenant.values()])
        return now - timedelta(days=longest)


async def _prune_batches(
    session_factory: SessionFactory,
    cutoff: datetime,
    *,
    store: ArtifactStore | None,
    tenant_ids: list[str] | None = None,
    exclude: list[str] | None = None,
) -> Deleted:
    done = NOTHING
    while True:
        async with session_factory() as s:
            ids = await expired_task_ids(
                s,
                finished_before=cutoff,
                tenant_ids=tenant_ids,
                exclude_tenants=exclude or (),
                limit=BATCH,
            )
            deleted = await delete_tasks(s, ids)
            await s.commit()
        if store is not None:  # the bytes go once the rows are gone
            for task_id in ids:
                await delete_task_blobs(store, task_id)
        done = done + deleted
        if len(ids) < BATCH:
            return done


async def prune_once(
    session_factory: SessionFactory,
    policy: RetentionPolicy,
    *,
    now: datetime | None = None,
    store: ArtifactStore | None = None,
) -> Deleted:
    """Delete every task past its tenant's retention; what was removed (also counted in
    the metrics). On Postgres, event partitions older than every retention go first."""
    now = now or utcnow()
    done = NOTHING
    oldest = policy.keeps_everything_after(now)
    if oldest is not None:
        # a task finishes at most longest_task_s after its first event
        bound = oldest - timedelta(seconds=policy.longest_task_s)
        async with session_factory() as s:
            done = done + await partitions.drop_older_than(s, bound)
            await s.commit()
    for tenant, days in policy.by_tenant.items():
        if days > 0:
            cutoff = now - timedelta(days=days)
            done = done + await _prune_batches(
                session_factory, cutoff, tenant_ids=[tenant], store=store
            )
    if policy.days > 0:
        cutoff = now - timedelta(days=policy.days)
        exclude = list(policy.by_tenant)
        done = done + await _prune_batches(session_factory, cutoff, exclude=exclude, store=store)
    metrics.data_deleted("retention", done.rows, done.size_bytes)
    return done


ORPHAN_GRACE = timedelta(minutes=10)  # an object is written a moment before its row


async def sweep_orphans(
    session_factory: SessionFactory,
    store: ArtifactStore,
    *,
    now: datetime | None = None,
    grace: timedelta = ORPHAN_GRACE,
) -> int:
    """Delete the objects of tasks whose row is gone (issue 32 item 5: a worker that wrote a
    trace after its task was deleted); only objects untouched for `grace`. How many."""
    newest = await store.newest_under(TASKS_PREFIX)
    bound = (now or utcnow()) - grace
    quiet = [task_id for task_id, when in newest.items() if when < bound]
    if not quiet:
        return 0
    async with session_factory() as s:
        present = await existing_task_ids(s, quiet)
    removed = 0
    for task_id in quiet:
        if task_id not in present:
            removed += await delete_task_blobs(store, task_id)
    if removed:
        log.info("retention: deleted %d object(s) of deleted tasks", removed)
    return removed


async def run_pruner(
    session_factory: SessionFactory, policy: RetentionPolicy, store: ArtifactStore | None = None
) -> None:
    """Prune every `interval_s` (until cancelled), and keep event partitions made ahead;
    a database outage skips a round."""
    while True:
        try:
            async with session_factory() as s:
                await partitions.ensure_ahead(s, utcnow())
                await s.commit()
            if store is not None:
                await sweep_orphans(session_factory, store)
            if policy.enabled:
                done = await prune_once(session_factory, policy, store=store)
                if done.total_rows:
                    log.info("retention: deleted %s (%d blob bytes)", done.rows, done.size_bytes)
        except (SQLAlchemyError, OSError) as exc:
            log.warning("retention round failed: %s", exc)
        await asyncio.sleep(policy.interval_s)
