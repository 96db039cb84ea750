"""Task repository on SQLite and Postgres: idempotency, paging, claims, cancel, reaper."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import update
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.contracts import DEFAULT_TENANT, ErrorCode, TaskStatus
from app.db import repositories as repo
from app.db.models import Task

Sessions = async_sessionmaker[AsyncSession]


def _req(**over: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "tenant_id": DEFAULT_TENANT,
        "instruction": "find the price",
        "start_url": "https://Shop.Example.com/item?id=1",
        "max_steps": 20,
        "timeout_s": 120,
        "allowed_domains": ["example.com"],
        "metadata": {"source": "test"},
    }
    base.update(over)
    return base


async def _new(sessions: Sessions, **over: Any) -> Task:
    async with sessions() as s:
        task, created = await repo.create_task(s, **_req(**over))
        await s.commit()
    assert created
    return task


async def test_create_and_get_roundtrip(s: AsyncSession) -> None:
    task, created = await repo.create_task(s, **_req())
    await s.commit()
    assert created and len(task.id) == 32
    got = await repo.get_task(s, task_id=task.id)
    assert got is not None
    assert (got.status, got.domain, got.allowed_domains, got.meta) == (
        "queued",
        "shop.example.com",
        ["example.com"],
        {"source": "test"},
    )
    assert got.created_at.tzinfo is not None and got.queued_at is not None
    assert (got.steps, got.cancel_requested, got.success) == (0, False, None)
    assert await repo.get_task(s, task_id=task.id, tenant_id="other") is None
    spec = repo.task_to_spec(got)
    assert spec.allowed_domains == ("example.com",) and spec.timeout_s == 120.0


async def test_idempotency_same_and_different_request(sessions: Sessions) -> None:
    first = await _new(sessions, idempotency_key="k1", request_hash="h1")
    async with sessions() as s:
        again, created = await repo.create_task(s, **_req(idempotency_key="k1", request_hash="h1"))
        assert (again.id, created) == (first.id, False)
        with pytest.raises(repo.IdempotencyConflict) as info:
            await repo.create_task(s, **_req(idempotency_key="k1", request_hash="h2"))
        assert info.value.existing_task_id == first.id
        other_tenant, created = await repo.create_task(
            s, **_req(tenant_id="t2", idempotency_key="k1", request_hash="h2")
        )
        assert created and other_tenant.id != first.id
        await s.commit()


async def test_idempotency_race_creates_one_task(sessions: Sessions) -> None:
    async def submit() -> tuple[str, bool]:
        async with sessions() as s:
            task, created = await repo.create_task(
                s, **_req(idempotency_key="race", request_hash="same")
            )
            await s.commit()
            return task.id, created

    results = await asyncio.gather(*(submit() for _ in range(6)))
    assert len({task_id for task_id, _ in results}) == 1
    assert sum(created for _, created in results) == 1


@pytest.mark.parametrize("loser_hash", ["same", "different"])
async def test_idempotency_race_loser_rereads_winner(
    sessions: Sessions, monkeypatch: pytest.MonkeyPatch, loser_hash: str
) -> None:
    """The loser's pre-check sees nothing, its INSERT hits the key, so it re-reads the winner."""
    from app.db import repo_tasks

    lookups: list[str | None] = []
    checked = asyncio.Event()
    original = repo_tasks._by_idempotency_key

    async def spy(s: AsyncSession, tenant_id: str, key: str) -> Task | None:
        found = await original(s, tenant_id, key)
        lookups.append(None if found is None else found.id)
        checked.set()
        return found

    async with sessions() as winner_session:
        winner, _ = await repo.create_task(
            winner_session, **_req(idempotency_key="k", request_hash="same")
        )  # inserted, not yet committed: the loser cannot see it
        monkeypatch.setattr(repo_tasks, "_by_idempotency_key", spy)

        async def loser() -> tuple[Task, bool]:
            async with sessions() as s:
                return await repo.create_task(
                    s, **_req(idempotency_key="k", request_hash=loser_hash)
                )

        pending = asyncio.create_task(loser())
        await checked.wait()
        await winner_session.commit()
        if loser_hash == "same":
            task, created = await pending
            assert (task.id, created) == (winner.id, False)
        else:
            with pytest.raises(repo.IdempotencyConflict):
                await pending
    assert lookups == [None, winner.id]


async def _set_created(sessions: Sessions, ids: list[str], at: datetime) -> None:
    async with sessions() as s:
        await s.execute(update(Task).where(Task.id.in_(ids)).values(created_at=at))
        await s.commit()


async def test_cursor_pagination_newest_first_with_ties(sessions: Sessions) -> None:
    ids = [(await _new(sessions)).id for _ in range(7)]
    t0 = datetime(2030, 1, 1, tzinfo=UTC)
    await _set_created(sessions, ids[:2], t0)  # oldest pair
    await _set_created(sessions, ids[2:6], t0 + timedelta(seconds=1))  # four-way tie
    await _set_created(sessions, ids[6:], t0 + timedelta(seconds=2))
    await _new(sessions, tenant_id="someone-else")
    expected = [ids[6], *sorted(ids[2:6], reverse=True), *sorted(ids[:2], reverse=True)]

    seen: list[str] = []
    cursor: str | None = None
    pages = 0
    async with sessions() as s:
        while True:
            page, cursor = await repo.list_tasks(
                s, tenant_id=DEFAULT_TENANT, cursor=cursor, limit=3
            )
            seen += [t.id for t in page]
            pages += 1
            if cursor is None:
                break
    assert seen == expected and pages == 3


async def test_list_filters(sessions: Sessions) -> None:
    a = await _new(sessions, start_url="https://a.example.org/x")
    b = await _new(sessions, start_url="https://b.example.org/")
    async with sessions() as s:
        await repo.finish_task(s, task_id=b.id, status=TaskStatus.succeeded, success=True)
        await s.commit()
        by_domain, _ = await repo.list_tasks(s, tenant_id=DEFAULT_TENANT, domain="A.example.org")
        assert [t.id for t in by_domain] == [a.id]
        done, _ = await repo.list_tasks(s, tenant_id=DEFAULT_TENANT, status="succeeded")
        assert [t.id for t in done] == [b.id]
        future = datetime.now(UTC) + timedelta(hours=1)
        assert (await repo.list_tasks(s, tenant_id=DEFAULT_TENANT, since=future))[0] == []
        with pytest.raises(repo.InvalidCursor):
            await repo.list_tasks(s, tenant_id=DEFAULT_TENANT, cursor="not-a-cursor")


async def test_mark_running_concurrent_claims_one_wins(sessions: Sessions) -> None:
    task = await _new(sessions)

    async def claim(worker: str) -> Task | None:
        async with sessions() as s:
            claimed = await repo.mark_running(s, task_id=task.id, worker_id=worker)
            await s.commit()
            return claimed

    results = await asyncio.gather(*(claim(f"w{i}") for i in range(4)))
    winners = [r for r in results if r is not None]
    assert len(winners) == 1
    won = winners[0]
    assert won.status == "running" and won.started_at is not None
    assert won.heartbeat_at is not None and won.worker_id is not None
    assert await claim("late") is None


async def test_heartbeat_only_for_owner_while_live(sessions: Sessions) -> None:
    task = await _new(sessions)
    async with sessions() as s:
        assert not await repo.heartbeat(s, task_id=task.id, worker_id="w1")  # still queued
        await repo.mark_running(s, task_id=task.id, worker_id="w1")
        assert await repo.heartbeat(s, task_id=task.id, worker_id="w1")
        assert not await repo.heartbeat(s, task_id=task.id, worker_id="w2")
        assert await repo.set_awaiting_approval(s, task_id=task.id, awaiting=True)
        assert await repo.heartbeat(s, task_id=task.id, worker_id="w1")
        assert await repo.set_awaiting_approval(s, task_id=task.id, awaiting=False)
        assert not await repo.set_awaiting_approval(s, task_id=task.id, awaiting=False)
        await repo.finish_task(s, task_id=task.id, status=TaskStatus.failed)
        assert not await repo.heartbeat(s, task_id=task.id, worker_id="w1")
        await s.commit()


async def test_finish_once_and_usage(sessions: Sessions) -> None:
    task = await _new(sessions)
    async with sessions() as s:
        await repo.mark_running(s, task_id=task.id, worker_id="w")
        await repo.update_usage(
            s, task_id=task.id, steps=3, llm_calls=4, input_tokens=100, output_tokens=7
        )
        with pytest.raises(ValueError):
            await repo.finish_task(s, task_id=task.id, status=TaskStatus.running)
        assert await repo.finish_task(
            s, task_id=task.id, status=TaskStatus.succeeded, answer="42", success=True
        )
        assert not await repo.finish_task(
            s, task_id=task.id, status=TaskStatus.failed, error=ErrorCode.internal
        )
        await s.commit()
        got = await repo.get_task(s, task_id=task.id)
    assert got is not None
    assert (got.status, got.answer, got.success, got.error) == ("succeeded", "42", True, None)
    assert (got.steps, got.llm_calls, got.input_tokens, got.output_tokens) == (3, 4, 100, 7)
    assert got.finished_at is not None and got.finished_at >= got.started_at  # type: ignore[operator]


async def test_cancel_queued_vs_running(sessions: Sessions) -> None:
    queued = await _new(sessions)
    running = await _new(sessions)
    async with sessions() as s:
        await repo.mark_running(s, task_id=running.id, worker_id="w")
        await s.commit()
        assert await repo.request_cancel(s, task_id=queued.id, tenant_id="other") is None
        q = await repo.request_cancel(s, task_id=queued.id, tenant_id=DEFAULT_TENANT)
        r = await repo.request_cancel(s, task_id=running.id, tenant_id=DEFAULT_TENANT)
        await s.commit()
    assert q is not None and r is not None
    assert (q.status, q.cancel_requested, q.finished_at is not None) == ("cancelled", True, True)
    assert (r.status, r.cancel_requested, r.finished_at) == ("running", True, None)
    async with sessions() as s:
        assert await repo.is_cancel_requested(s, task_id=running.id)
        assert await repo.is_cancel_requested(s, task_id="0" * 32)  # gone: nothing to run
        assert await repo.mark_running(s, task_id=queued.id, worker_id="w2") is None
        assert await repo.finish_task(s, task_id=running.id, status=TaskStatus.cancelled)
        await s.commit()


async def test_cancel_terminal_is_unchanged_and_fresh_not_requested(sessions: Sessions) -> None:
    task = await _new(sessions)
    async with sessions() as s:
        assert not await repo.is_cancel_requested(s, task_id=task.id)
        await repo.finish_task(s, task_id=task.id, status=TaskStatus.failed)
        got = await repo.request_cancel(s, task_id=task.id, tenant_id=DEFAULT_TENANT)
        await s.commit()
    assert got is not None and (got.status, got.cancel_requested) == ("failed", False)


async def test_cancel_flag_blocks_claim(sessions: Sessions) -> None:
    task = await _new(sessions)
    async with sessions() as s:
        await s.execute(update(Task).where(Task.id == task.id).values(cancel_requested=True))
        await s.commit()
        assert await repo.mark_running(s, task_id=task.id, worker_id="w") is None


async def test_reaper_fails_stale_live_tasks_only(sessions: Sessions) -> None:
    stale, fresh, waiting, queued = [await _new(sessions) for _ in range(4)]
    long_ago = datetime.now(UTC) - timedelta(hours=1)
    async with sessions() as s:
        for t in (stale, fresh, waiting):
            await repo.mark_running(s, task_id=t.id, worker_id="w")
        await repo.set_awaiting_approval(s, task_id=waiting.id, awaiting=True)
        await s.execute(
            update(Task).where(Task.id.in_([stale.id, waiting.id])).values(heartbeat_at=long_ago)
        )
        await s.commit()
        cutoff = datetime.now(UTC) - timedelta(minutes=5)
        reaped = await repo.reap_lost_tasks(s, stale_before=cutoff)
        await s.commit()
        assert reaped == sorted([stale.id, waiting.id])
        assert await repo.reap_lost_tasks(s, stale_before=cutoff) == []
        for task_id, status in [
            (stale.id, "failed"),
            (waiting.id, "failed"),
            (fresh.id, "running"),
            (queued.id, "queued"),
        ]:
            got = await repo.get_task(s, task_id=task_id)
            assert got is not None and got.status == status
        got = await repo.get_task(s, task_id=stale.id)
        assert got is not None
        assert (got.error, got.success, got.finished_at is not None) == ("worker_lost", False, True)


async def test_count_by_status(sessions: Sessions) -> None:
    a = await _new(sessions)
    await _new(sessions)
    await _new(sessions, tenant_id="t2")
    async with sessions() as s:
        await repo.mark_running(s, task_id=a.id, worker_id="w")
        await s.commit()
        everyone = await repo.count_by_status(s)
        mine = await repo.count_by_status(s, tenant_id="t2")
    assert set(everyone) == {x.value for x in TaskStatus}
    assert (everyone["queued"], everyone["running"], everyone["failed"]) == (2, 1, 0)
    assert (mine["queued"], mine["running"]) == (1, 0)


async def test_reaped_task_cannot_be_finished_or_heartbeat(sessions: Sessions) -> None:
    task = await _new(sessions)
    async with sessions() as s:
        await repo.mark_running(s, task_id=task.id, worker_id="w")
        await s.commit()
        future = datetime.now(UTC) + timedelta(minutes=1)
        assert await repo.reap_lost_tasks(s, stale_before=future) == [task.id]
        await s.commit()
        assert not await repo.finish_task(s, task_id=task.id, status=TaskStatus.succeeded)
        assert not await repo.heartbeat(s, task_id=task.id, worker_id="w")
        got = await repo.get_task(s, task_id=task.id)
    assert got is not None and (got.status, got.error) == ("failed", ErrorCode.worker_lost)
