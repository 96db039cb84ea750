"""Webhook outbox and browser profile rows on SQLite and Postgres."""

from __future__ import annotations

import asyncio
from datetime import timedelta

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db import repo_profiles, repo_webhooks, repositories
from app.db.types import utcnow

Sessions = async_sessionmaker[AsyncSession]


async def task_with_hook(sessions: Sessions, *, finished: bool) -> str:
    async with sessions() as s:
        task, _ = await repositories.create_task(
            s,
            tenant_id="t",
            instruction="x",
            start_url=None,
            max_steps=1,
            timeout_s=10,
            allowed_domains=(),
            metadata={},
            extra={"webhook_url": "https://hooks.example/x"},
        )
        await repo_webhooks.create_delivery(s, task_id=task.id, tenant_id="t", url="https://h/x")
        if finished:
            await repositories.finish_task(s, task_id=task.id, status="failed", success=False)
        await s.commit()
        return task.id


async def test_only_finished_tasks_are_due_and_a_claim_is_exclusive(sessions: Sessions) -> None:
    queued = await task_with_hook(sessions, finished=False)
    done = await task_with_hook(sessions, finished=True)

    async def claim() -> list[str]:
        async with sessions() as s:
            ids = await repo_webhooks.claim_due(s, lease_s=60)
            await s.commit()
            return ids

    first, second = await asyncio.gather(claim(), claim())
    claimed = first + second
    assert len(claimed) == 1  # two deliverers never send the same attempt
    async with sessions() as s:
        row = await repo_webhooks.get_delivery(s, task_id=done)
        assert row is not None and claimed == [row.id]
        assert await repo_webhooks.get_delivery(s, task_id=queued) is not None
    assert await claim() == []  # leased for 60 s


async def test_attempts_schedule_retries_then_fail_and_reset_starts_over(
    sessions: Sessions,
) -> None:
    task_id = await task_with_hook(sessions, finished=True)
    async with sessions() as s:
        row = await repo_webhooks.get_delivery(s, task_id=task_id)
        assert row is not None
        later = utcnow() + timedelta(seconds=30)
        attempt = {"at": utcnow().isoformat(), "status_code": 503, "error": "HTTP 503"}
        await repo_webhooks.record_attempt(
            s, delivery_id=row.id, attempt=attempt, delivered=False, next_attempt_at=later
        )
        await repo_webhooks.record_attempt(
            s, delivery_id=row.id, attempt=attempt, delivered=False, next_attempt_at=None
        )
        await s.commit()
    async with sessions() as s:
        row = await repo_webhooks.get_delivery(s, task_id=task_id)
        assert row is not None and (row.state, row.attempts, len(row.attempts_log)) == (
            "failed",
            2,
            2,
        )
        await repo_webhooks.reset_delivery(s, task_id=task_id)
        await s.commit()
    async with sessions() as s:
        assert await repo_webhooks.claim_due(s, lease_s=60) == [row.id]
        row = await repo_webhooks.get_delivery(s, task_id=task_id)
        assert row is not None and (row.state, row.attempts, len(row.attempts_log)) == (
            "pending",
            0,
            2,
        )


async def test_profiles_are_tenant_scoped(sessions: Sessions) -> None:
    async with sessions() as s:
        assert await repo_profiles.create_profile(s, tenant_id="a", name="p") is not None
        assert await repo_profiles.create_profile(s, tenant_id="b", name="p") is not None
        assert await repo_profiles.create_profile(s, tenant_id="a", name="p") is None
        assert await repo_profiles.save_storage(s, tenant_id="a", name="p", sealed="tok")
        assert not await repo_profiles.save_storage(s, tenant_id="a", name="q", sealed="tok")
        await s.commit()
    async with sessions() as s:
        b = await repo_profiles.get_profile(s, tenant_id="b", name="p")
        assert b is not None and b.storage_sealed is None
        assert [p.name for p in await repo_profiles.list_profiles(s, tenant_id="a")] == ["p"]
        assert await repo_profiles.delete_profile(s, tenant_id="b", name="p")
        assert not await repo_profiles.delete_profile(s, tenant_id="b", name="p")
        await s.commit()


async def test_a_tasks_messages_are_sent_in_event_order(sessions: Sessions) -> None:
    """issue 37 §5: approval.requested arrived 6 s before task.started (the first attempt of
    task.started had failed and waited for its retry). A task's later message is due only
    when every earlier one is delivered or given up; task.finished comes last."""
    task_id = await task_with_hook(sessions, finished=False)
    async with sessions() as s:
        started = await repo_webhooks.create_delivery(
            s, task_id=task_id, tenant_id="t", url="https://h/x", event_type="task.started"
        )
        asked = await repo_webhooks.create_delivery(
            s, task_id=task_id, tenant_id="t", url="https://h/x", event_type="approval.requested"
        )
        later = utcnow() + timedelta(seconds=30)
        attempt = {"at": utcnow().isoformat(), "status_code": 503, "error": "HTTP 503"}
        await repo_webhooks.record_attempt(  # task.started failed once: retry in 30 s
            s, delivery_id=started.id, attempt=attempt, delivered=False, next_attempt_at=later
        )
        await repositories.finish_task(s, task_id=task_id, status="failed", success=False)
        await s.commit()
    async with sessions() as s:
        assert await repo_webhooks.claim_due(s, lease_s=60) == []  # nothing overtakes it
        ok = {"at": utcnow().isoformat(), "status_code": 204, "error": None}
        await repo_webhooks.record_attempt(
            s, delivery_id=started.id, attempt=ok, delivered=True, next_attempt_at=None
        )
        await s.commit()
    async with sessions() as s:
        assert await repo_webhooks.claim_due(s, lease_s=0) == [asked.id]
        await repo_webhooks.record_attempt(
            s, delivery_id=asked.id, attempt=ok, delivered=True, next_attempt_at=None
        )
        await s.commit()
    async with sessions() as s:
        finished = await repo_webhooks.get_delivery(s, task_id=task_id)
        assert finished is not None
        assert await repo_webhooks.claim_due(s, lease_s=60) == [finished.id]
