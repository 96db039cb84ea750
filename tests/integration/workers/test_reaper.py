"""The reaper fails tasks whose worker stopped heartbeating, and only those."""

from __future__ import annotations

from datetime import timedelta

import pytest
from redis.exceptions import ConnectionError as RedisConnectionError
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app import metrics
from app.contracts import ErrorCode, Event, TaskStatus
from app.db import SiteExploration, Task, repositories
from app.db.types import utcnow
from app.events import MemoryEventBus
from app.reaper import interrupt_tasks, reap_explorations, reap_once
from tests.integration.workers.conftest import new_task

pytestmark = [pytest.mark.services, pytest.mark.both_databases]


async def test_reaps_stale_running_task(sessions: async_sessionmaker[AsyncSession]) -> None:
    stale = await new_task(sessions)
    fresh = await new_task(sessions)
    queued = await new_task(sessions)
    async with sessions() as s:
        assert await repositories.mark_running(s, task_id=stale, worker_id="w-dead")
        assert await repositories.mark_running(s, task_id=fresh, worker_id="w-alive")
        old = utcnow() - timedelta(minutes=10)
        await s.execute(update(Task).where(Task.id == stale).values(heartbeat_at=old))
        await s.commit()

    bus = MemoryEventBus()
    received: list[Event] = []
    lost_before = metrics.sample_value("webagent_tasks_lost_total")
    async with bus.subscribe(stale) as sub:
        reaped = await reap_once(sessions, timeout_s=60, bus=bus)
        event = await sub.next(timeout=5)
        assert event is not None
        received.append(event)
    assert stale in reaped
    assert fresh not in reaped and queued not in reaped
    assert metrics.sample_value("webagent_tasks_lost_total") - lost_before == len(reaped)

    async with sessions() as s:
        task = await repositories.get_task(s, task_id=stale)
        rows = await repositories.list_events(s, task_id=stale)
    assert task is not None
    assert task.status == TaskStatus.failed
    assert task.error == ErrorCode.worker_lost
    assert [(r.type, r.data["error"]) for r in rows] == [("task.finished", "worker_lost")]
    assert received[0].seq == rows[0].seq and received[0].data["status"] == "failed"


async def test_leaves_heartbeating_task_alone(sessions: async_sessionmaker[AsyncSession]) -> None:
    task_id = await new_task(sessions)
    async with sessions() as s:
        await repositories.mark_running(s, task_id=task_id, worker_id="w1")
        await s.commit()
    assert task_id not in await reap_once(sessions, timeout_s=3600)
    async with sessions() as s:
        task = await repositories.get_task(s, task_id=task_id)
    assert task is not None and task.status == TaskStatus.running


class _FlakyBus(MemoryEventBus):
    """Redis down for the first publish only."""

    def __init__(self) -> None:
        super().__init__()
        self.failures = 0

    async def publish(self, event: Event) -> None:
        if self.failures == 0:
            self.failures += 1
            raise RedisConnectionError("Redis is down")
        await super().publish(event)


async def test_a_failed_publish_does_not_stop_the_round(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    """Every stale task still gets its terminal event row (SSE replays it from the DB)."""
    stale = [await new_task(sessions) for _ in range(3)]
    async with sessions() as s:
        for task_id in stale:
            assert await repositories.mark_running(s, task_id=task_id, worker_id="w-dead")
        old = utcnow() - timedelta(minutes=10)
        await s.execute(update(Task).where(Task.id.in_(stale)).values(heartbeat_at=old))
        await s.commit()
    bus = _FlakyBus()
    reaped = await reap_once(sessions, timeout_s=60, bus=bus)
    assert set(stale) <= set(reaped) and bus.failures == 1
    async with sessions() as s:
        for task_id in stale:
            rows = await repositories.list_events(s, task_id=task_id)
            assert [(r.type, r.data["error"]) for r in rows] == [("task.finished", "worker_lost")]


async def test_interrupt_fails_only_the_stopped_workers_tasks(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    stopped, other = await new_task(sessions), await new_task(sessions)
    async with sessions() as s:
        assert await repositories.mark_running(s, task_id=stopped, worker_id="w-stopped")
        assert await repositories.mark_running(s, task_id=other, worker_id="w-running")
        await s.commit()
    bus = MemoryEventBus()
    async with bus.subscribe(stopped) as sub:
        assert await interrupt_tasks(sessions, worker_ids=["w-stopped"], bus=bus) == [stopped]
        event = await sub.next(timeout=5)
    assert event is not None and event.data["error"] == "interrupted"
    async with sessions() as s:
        task = await repositories.get_task(s, task_id=stopped)
        untouched = await repositories.get_task(s, task_id=other)
        rows = await repositories.list_events(s, task_id=stopped)
    assert task is not None and (task.status, task.error) == (TaskStatus.failed, "interrupted")
    assert untouched is not None and untouched.status == TaskStatus.running
    assert [(r.type, r.data["status"], r.data["error"]) for r in rows] == [
        ("task.finished", "failed", "interrupted")
    ]


async def test_reaps_a_lost_exploration_and_cancels_a_live_one(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    """Explorations share the tasks' lease (app/db/leases.py): a stale one is failed with
    worker_lost by the reaper's round, a heartbeating one is left alone; a cancel ends a
    live one at once and the worker's next heartbeat finds it no longer its own."""
    async with sessions() as s:
        ids = []
        for _ in range(3):
            row = await repositories.create_exploration(
                s, tenant_id="t", domain="shop.test", url="https://shop.test/", params={}
            )
            ids.append(row.id)
        lost, alive, cancelled = ids
        for row_id in ids:
            assert await repositories.claim_exploration(s, exploration_id=row_id, worker_id="w")
        assert await repositories.claim_exploration(s, exploration_id=lost, worker_id="x") is None
        old = utcnow() - timedelta(minutes=10)
        stale = update(SiteExploration).where(SiteExploration.id == lost)
        await s.execute(stale.values(heartbeat_at=old))
        await s.commit()

    assert await reap_explorations(sessions, timeout_s=60) == 1

    async with sessions() as s:
        assert await repositories.report_progress(
            s, exploration_id=alive, worker_id="w", progress={"pages": 2}
        )
        assert not await repositories.report_progress(
            s, exploration_id=lost, worker_id="w", progress={"pages": 2}
        )
        row = await repositories.cancel_exploration(s, exploration_id=cancelled, tenant_id="t")
        assert row is not None and row.status == TaskStatus.cancelled
        assert row.finished_at is not None
        assert not await repositories.report_progress(
            s, exploration_id=cancelled, worker_id="w", progress={}
        )
        other = await repositories.cancel_exploration(s, exploration_id=alive, tenant_id="u")
        assert other is None  # another tenant's: not found, not cancelled
        await s.commit()
        got = {i: await repositories.get_exploration(s, exploration_id=i) for i in (lost, alive)}
    assert got[lost] is not None and got[lost].status == TaskStatus.failed
    assert got[lost].error == ErrorCode.worker_lost
    assert got[alive] is not None and got[alive].status == TaskStatus.running
    assert got[alive].progress == {"pages": 2}
