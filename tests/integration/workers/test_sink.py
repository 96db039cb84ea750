"""DbEventSink: the row is committed before the event reaches the bus, seqs are gap-free."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.contracts import Event
from app.db import repositories
from app.store import StoreConfig, open_store
from app.store.records import read_artifact
from tests.integration.workers.conftest import new_task
from workers.adapters.sink import DbEventSink

pytestmark = [pytest.mark.services, pytest.mark.both_databases]


class CheckingBus:
    """Records published events and whether each was already readable from the DB."""

    def __init__(self, sessions: async_sessionmaker[AsyncSession]) -> None:
        self.sessions = sessions
        self.published: list[tuple[Event, bool]] = []

    async def publish(self, event: Event) -> None:
        async with self.sessions() as s:
            rows = await repositories.list_events(s, task_id=event.task_id)
        self.published.append((event, any(r.seq == event.seq for r in rows)))

    def subscribe(self, task_id: str) -> None:
        raise AssertionError("not used")


async def checked_sink(
    sessions: async_sessionmaker[AsyncSession],
) -> tuple[str, CheckingBus, DbEventSink]:
    """A new task and its sink on a bus that checks each event's row is committed first."""
    task_id = await new_task(sessions)
    bus = CheckingBus(sessions)
    return task_id, bus, DbEventSink(sessions, bus, task_id, "default")  # type: ignore[arg-type]


async def test_emit_writes_db_then_bus(sessions: async_sessionmaker[AsyncSession]) -> None:
    task_id, bus, sink = await checked_sink(sessions)
    await sink.emit("task.started", {"n": 0})
    await sink.emit("step.started", {"step": 1, "refs": ("a", "b")})
    await sink.emit("task.finished", {"status": "succeeded"})
    await sink.flush()

    assert [(e.seq, e.type, seen) for e, seen in bus.published] == [
        (1, "task.started", True),
        (2, "step.started", True),
        (3, "task.finished", True),
    ]
    assert bus.published[1][0].data == {"step": 1, "refs": ["a", "b"]}
    async with sessions() as s:
        rows = await repositories.list_events(s, task_id=task_id)
    assert [(r.seq, r.type) for r in rows] == [
        (1, "task.started"),
        (2, "step.started"),
        (3, "task.finished"),
    ]
    assert [r.id for r in rows] == [e.id for e, _ in bus.published]


async def test_seq_continues_after_existing_events(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    task_id = await new_task(sessions)
    bus = CheckingBus(sessions)
    first = DbEventSink(sessions, bus, task_id, "default")  # type: ignore[arg-type]
    await first.emit("a", {})
    await first.flush()
    second = DbEventSink(sessions, bus, task_id, "default")  # type: ignore[arg-type]
    await second.emit("b", {})
    await second.flush()
    assert [e.seq for e, _ in bus.published] == [1, 2]
    assert second.last_seq == 2


async def test_screenshot_and_cancel(
    sessions: async_sessionmaker[AsyncSession], tmp_path: Path
) -> None:
    task_id = await new_task(sessions)
    store = open_store(StoreConfig(local_dir=str(tmp_path)))
    bus = CheckingBus(sessions)
    sink = DbEventSink(sessions, bus, task_id, "default", store=store)  # type: ignore[arg-type]
    await sink.save_screenshot(3, b"\xff\xd8jpeg")
    async with sessions() as s:
        artifact = await repositories.get_artifact(s, task_id=task_id, kind="screenshot", step=3)
        assert artifact is not None and await read_artifact(s, store, artifact) == b"\xff\xd8jpeg"
        assert await repositories.legacy_artifact_data(s, artifact.id) is None  # in the store
    assert artifact.content_type == "image/jpeg" and artifact.size == 6

    assert await sink.cancel_requested() is False
    async with sessions() as s:
        await repositories.request_cancel(s, task_id=task_id, tenant_id="default")
        await s.commit()
    assert await sink.cancel_requested() is True


async def test_secret_values_are_redacted_before_the_row_and_the_bus(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    from app.secrets import SecretEntry
    from workers.adapters.secrets import SecretVault

    task_id = await new_task(sessions)
    bus = CheckingBus(sessions)
    vault = SecretVault({"pw": SecretEntry(value="hunter2-pass")})
    sink = DbEventSink(sessions, bus, task_id, "default", vault)  # type: ignore[arg-type]
    await sink.emit("step.finished", {"error": "field holds hunter2-pass", "n": ["hunter2-pass"]})
    await sink.flush()
    async with sessions() as s:
        rows = await repositories.list_events(s, task_id=task_id)
    assert rows[0].data == {"error": "field holds [secret]", "n": ["[secret]"]}
    assert "hunter2-pass" not in str(bus.published[0][0].data)


async def test_emit_returns_before_the_write_and_flush_after_it(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    """Write-behind: the loop does not wait for the row; flush() does, in seq order."""
    _, bus, sink = await checked_sink(sessions)
    for step in range(1, 6):
        await sink.emit("step.started", {"step": step})
    assert len(bus.published) < 5  # at most what the writer got to meanwhile
    await sink.flush()
    assert [(e.seq, e.data["step"], seen) for e, seen in bus.published] == [
        (n, n, True) for n in range(1, 6)
    ]


async def test_events_emitted_together_are_one_transaction(
    sessions: async_sessionmaker[AsyncSession],
) -> None:
    """Issue 35: the events a step emits before the writer runs are committed together (a
    commit per event was the worker loop's largest CPU cost), in seq order, usage with them."""
    task_id = await new_task(sessions)
    commits: list[int] = []

    @contextlib.asynccontextmanager
    async def counted() -> AsyncIterator[AsyncSession]:
        async with sessions() as s:
            commit = s.commit

            async def counting_commit() -> None:
                commits.append(1)
                await commit()

            s.commit = counting_commit  # type: ignore[method-assign]
            yield s

    bus = CheckingBus(sessions)
    sink = DbEventSink(counted, bus, task_id, "default")  # type: ignore[arg-type]
    await sink.emit("step.started", {"step": 1})
    await sink.emit("observation", {"step": 1, "url": "http://a.test/"})
    llm = {"step": 1, "role": "worker", "model": "m", "input_tokens": 7, "output_tokens": 2}
    await sink.emit("llm.call", {**llm, "latency_s": 0.1})
    await sink.emit("action.executed", {"step": 1, "action": "click", "success": True})
    await sink.flush()
    assert len(commits) == 1
    assert [(e.seq, e.type, seen) for e, seen in bus.published] == [
        (1, "step.started", True),
        (2, "observation", True),
        (3, "llm.call", True),
        (4, "action.executed", True),
    ]
    async with sessions() as s:
        task = await repositories.get_task(s, task_id=task_id)
    assert task is not None and (task.input_tokens, task.output_tokens) == (7, 2)
