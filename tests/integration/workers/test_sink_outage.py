"""DbEventSink across a short database outage: writes retried with backoff, no duplicate seq."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.contracts import ErrorCode, TaskSpec, TaskStatus
from app.db import repositories
from app.events import MemoryEventBus
from app.settings import Settings
from app.store import open_store
from tests.integration.workers.conftest import new_task
from workers import jobs
from workers.adapters import outage as outage_module
from workers.adapters.sink import DbEventSink

pytestmark = [pytest.mark.services, pytest.mark.both_databases]


class Outage:
    """Session factory: the next `refuse` sessions fail to connect; `lose_commit` commits
    and then loses the connection before the answer arrives (did it commit? it did)."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self.sessions = sessions
        self.refuse = 0
        self.lose_commit = 0

    def __call__(self) -> Any:
        return self._session()

    @contextlib.asynccontextmanager
    async def _session(self) -> AsyncIterator[AsyncSession]:
        if self.refuse > 0:
            self.refuse -= 1
            raise ConnectionRefusedError(111, "Connect call failed")
        async with self.sessions() as s:
            if self.lose_commit > 0:
                self.lose_commit -= 1
                commit = s.commit

                async def commit_then_drop() -> None:
                    await commit()
                    raise ConnectionResetError(104, "connection reset by peer")

                s.commit = commit_then_drop  # type: ignore[method-assign]
            yield s


@pytest.fixture(autouse=True)
def fast_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(outage_module, "RETRY_FIRST_DELAY_S", 0.01)


async def _rows(sessions: async_sessionmaker[AsyncSession], task_id: str) -> list[Any]:
    async with sessions() as s:
        return list(await repositories.list_events(s, task_id=task_id))


async def test_emit_waits_out_a_refused_database(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    task_id = await new_task(sessions)
    outage = Outage(sessions)
    store = open_store(Settings())  # the test session's artifact folder (tests/conftest.py)
    sink = DbEventSink(outage, MemoryEventBus(), task_id, "default", store=store)
    await sink.emit("task.started", {})
    outage.refuse = 4
    await sink.emit("step.started", {"step": 1})
    await sink.save_screenshot(1, b"\xff\xd8jpeg")
    await sink.flush()
    assert [(r.seq, r.type) for r in await _rows(sessions, task_id)] == [
        (1, "task.started"),
        (2, "step.started"),
    ]
    assert outage.refuse == 0


async def test_a_commit_whose_answer_was_lost_is_not_written_twice(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    task_id = await new_task(sessions)
    outage = Outage(sessions)
    sink = DbEventSink(outage, MemoryEventBus(), task_id, "default")
    outage.lose_commit = 1
    await sink.emit("task.started", {})
    await sink.emit("step.started", {"step": 1})
    await sink.flush()
    assert [(r.seq, r.type) for r in await _rows(sessions, task_id)] == [
        (1, "task.started"),
        (2, "step.started"),
    ]


async def test_a_long_outage_still_fails_the_write(
    sessions: async_sessionmaker[AsyncSession], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(outage_module, "RETRY_BUDGET_S", 0.05)
    task_id = await new_task(sessions)
    outage = Outage(sessions)
    sink = DbEventSink(outage, MemoryEventBus(), task_id, "default")
    outage.refuse = 10_000
    await sink.emit("task.started", {})  # queued: the writer meets the outage
    with pytest.raises(ConnectionRefusedError):
        await sink.flush()
    outage.refuse = 0
    await sink.emit("step.started", {"step": 1})  # the failure was handed over once
    await sink.flush()
    assert [(r.seq, r.type) for r in await _rows(sessions, task_id)] == [(1, "step.started")]


async def test_a_cancelled_emit_keeps_its_seq(sessions: async_sessionmaker[AsyncSession]) -> None:
    """A run cancelled mid-write (cancel, hard timeout) then emits task.finished: no seq twice
    (the writer is not the run's task: a cancelled run does not cut its write short)."""
    task_id = await new_task(sessions)
    committing = asyncio.Event()

    @contextlib.asynccontextmanager
    async def slow_commits() -> AsyncIterator[AsyncSession]:
        async with sessions() as s:
            commit = s.commit

            async def slow_commit() -> None:
                committing.set()
                await asyncio.sleep(0.3)
                await commit()

            s.commit = slow_commit  # type: ignore[method-assign]
            yield s

    sink = DbEventSink(slow_commits, MemoryEventBus(), task_id, "default")
    first = asyncio.create_task(sink.emit("step.started", {"step": 1}))
    await committing.wait()
    first.cancel()
    await sink.emit("task.finished", {"status": "cancelled"})
    with contextlib.suppress(asyncio.CancelledError):
        await first
    await sink.flush()
    assert [(r.seq, r.type) for r in await _rows(sessions, task_id)] == [
        (1, "step.started"),
        (2, "task.finished"),
    ]


async def test_the_outcome_is_recorded_after_a_short_outage(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    """The job's last writes (status, task.finished) wait the outage out too."""
    task_id = await new_task(sessions)
    async with sessions() as s:
        assert await repositories.mark_running(s, task_id=task_id, worker_id="w1")
        await s.commit()
    outage = Outage(sessions)
    sink = DbEventSink(outage, MemoryEventBus(), task_id, "default")
    rt = SimpleNamespace(sessions=outage)
    spec = TaskSpec(task_id=task_id, instruction="x", max_steps=3, timeout_s=60)
    outcome = jobs.failed_outcome(TaskStatus.failed, ErrorCode.llm_error, "model down")
    outage.refuse = 3
    await jobs._finish(rt, spec, sink, outcome, 1.0)  # type: ignore[arg-type]
    async with sessions() as s:
        task = await repositories.get_task(s, task_id=task_id)
    assert task is not None and (task.status, task.error) == (TaskStatus.failed, "llm_error")
    rows = await _rows(sessions, task_id)
    assert [(r.seq, r.type, r.data["error"]) for r in rows] == [(1, "task.finished", "llm_error")]


async def test_emit_waits_while_the_writer_rides_out_an_outage(
    sessions: async_sessionmaker[AsyncSession], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Write-behind does not let a run act on through an outage with its record in memory:
    once the writer is retrying, the next emit returns only when the database took both."""
    monkeypatch.setattr(outage_module, "RETRY_FIRST_DELAY_S", 0.05)
    task_id = await new_task(sessions)
    outage = Outage(sessions)
    sink = DbEventSink(outage, MemoryEventBus(), task_id, "default")
    outage.refuse = 3
    await sink.emit("task.started", {})  # returns at once: the writer meets the outage
    async with asyncio.timeout(10):
        while outage.refuse > 1:  # a positive signal: the writer has been refused twice
            await asyncio.sleep(0.01)
    await sink.emit("step.started", {"step": 1})
    assert [(r.seq, r.type) for r in await _rows(sessions, task_id)] == [
        (1, "task.started"),
        (2, "step.started"),
    ]
