"""The task's outcome and its task.finished event are one transaction (DbEventSink.emit_final):
an SSE reader never finds a terminal task without its final event."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy.exc import IntegrityError

from app.contracts import TaskStatus
from app.db import repositories
from app.db.types import utcnow
from app.events import MemoryEventBus
from tests.integration.workers.conftest import new_task
from tests.integration.workers.test_jobs import Sessions
from workers.adapters.sink import DbEventSink

pytestmark = pytest.mark.both_databases


async def _running(sessions: Sessions) -> str:
    task_id = await new_task(sessions)
    async with sessions() as s:
        await repositories.mark_running(s, task_id=task_id, worker_id="w")
        await s.commit()
    return task_id


def _record(task_id: str) -> Any:
    async def record(s: Any) -> bool:
        return await repositories.finish_task(
            s, task_id=task_id, status="succeeded", answer="42", success=True
        )

    return record


async def test_the_outcome_and_task_finished_land_together(sessions: Sessions) -> None:
    task_id = await _running(sessions)
    sink = DbEventSink(sessions, MemoryEventBus(), task_id, "default")
    await sink.emit("task.started", {})
    assert await sink.emit_final({"status": "succeeded"}, _record(task_id))
    async with sessions() as s:
        task = await repositories.get_task(s, task_id=task_id)
        rows = await repositories.list_events(s, task_id=task_id)
    assert task is not None and task.status == TaskStatus.succeeded
    assert [(r.seq, r.type) for r in rows] == [(1, "task.started"), (2, "task.finished")]


async def test_a_failed_event_write_leaves_the_task_running(sessions: Sessions) -> None:
    task_id = await _running(sessions)
    async with sessions() as s:  # another writer took seq 1 behind the sink's back
        await repositories.append_event(s, task_id=task_id, seq=1, type="x", data={}, ts=utcnow())
        await s.commit()
    sink = DbEventSink(sessions, MemoryEventBus(), task_id, "default")
    sink._next_seq = 1
    with pytest.raises(IntegrityError):
        await sink.emit_final({"status": "succeeded"}, _record(task_id))
    async with sessions() as s:
        task = await repositories.get_task(s, task_id=task_id)
    assert task is not None and task.status == TaskStatus.running  # rolled back together


async def test_an_already_terminal_task_is_not_announced(sessions: Sessions) -> None:
    task_id = await _running(sessions)
    async with sessions() as s:
        await _record(task_id)(s)
        await s.commit()
    sink = DbEventSink(sessions, MemoryEventBus(), task_id, "default")
    assert not await sink.emit_final({"status": "succeeded"}, _record(task_id))
    async with sessions() as s:
        assert await repositories.list_events(s, task_id=task_id) == []
