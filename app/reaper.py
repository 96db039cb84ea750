"""Liveness: fail running tasks whose worker stopped heartbeating (never re-run them).

A task whose worker died mid-run may have had side effects on the web; re-running it
automatically could repeat them, so the reaper only marks it failed/worker_lost and
tells live viewers with a final task.finished event.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import timedelta
from typing import Any

from redis.exceptions import RedisError
from sqlalchemy import and_, or_, select, update
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from app import metrics
from app.contracts import ErrorCode, Event, EventType, TaskStatus, Usage
from app.db import Task, repositories
from app.db.repo_tasks import LIVE_STATUSES
from app.db.types import utcnow
from app.events import EventBus

log = logging.getLogger(__name__)

SessionFactory = Callable[[], Any]  # async_sessionmaker[AsyncSession]


def _finished_data(task: Any, error: ErrorCode) -> dict[str, Any]:
    """Same shape as the worker's task.finished payload."""
    usage = Usage(
        steps=task.steps,
        llm_calls=task.llm_calls,
        input_tokens=task.input_tokens,
        output_tokens=task.output_tokens,
    )
    return {
        "status": TaskStatus.failed.value,
        "answer": None,
        "success": False,
        "error": error.value,
        "error_detail": task.error_detail,
        "usage": usage.model_dump(),
    }


async def _fail_one(
    session_factory: SessionFactory,
    task_id: str,
    *,
    error: ErrorCode,
    detail: str,
    where: tuple[Any, ...] = (),
) -> Event | None:
    """Fail one live task and write its task.finished row in the same transaction.

    One transaction, so an SSE client never finds the task terminal without its final event
    (the stream ends at a terminal status once everything persisted is sent). None when the
    task was no longer live (or no longer matched `where`).
    """
    now = utcnow()
    stmt = (
        update(Task)
        .where(Task.id == task_id, Task.status.in_(LIVE_STATUSES), *where)
        .values(
            status=TaskStatus.failed.value,
            success=False,
            error=error.value,
            error_detail=detail,
            finished_at=now,
            updated_at=now,
        )
        .returning(Task.id)
        .execution_options(synchronize_session=False)
    )
    async with session_factory() as s:
        if (await s.execute(stmt)).scalar_one_or_none() is None:
            await s.rollback()
            return None
        task = await repositories.get_task(s, task_id=task_id)
        assert task is not None
        seq = await repositories.next_event_seq(s, task_id=task_id)
        data = _finished_data(task, error)
        row = await repositories.append_event(
            s, task_id=task_id, seq=seq, type=EventType.task_finished.value, data=data, ts=now
        )
        await s.commit()
    metrics.task_finished(TaskStatus.failed.value, None)
    metrics.task_error(error.value)
    return Event(id=str(row.id), task_id=task_id, seq=seq, ts=row.ts, type=row.type, data=data)


async def _fail_each(
    session_factory: SessionFactory,
    task_ids: list[str],
    *,
    error: ErrorCode,
    detail: str,
    where: tuple[Any, ...] = (),
    bus: EventBus | None = None,
) -> list[str]:
    """_fail_one per task; one task's failure never costs the others their terminal event."""
    failed: list[str] = []
    for task_id in task_ids:
        try:
            event = await _fail_one(
                session_factory, task_id, error=error, detail=detail, where=where
            )
        except IntegrityError:  # its worker wrote that seq meanwhile: alive after all
            log.warning("task %s: not failed (%s), its worker is still writing", task_id, error)
            continue
        except (SQLAlchemyError, OSError) as exc:
            log.warning("task %s: could not be failed with %s: %r", task_id, error, exc)
            continue
        if event is None:
            continue
        failed.append(task_id)
        log.warning("task %s failed with %s: %s", task_id, error.value, detail)
        if error == ErrorCode.worker_lost:
            metrics.task_lost()
        if bus is not None:
            try:  # the row is committed: SSE replays it from the DB if this publish fails
                await bus.publish(event)
            except (RedisError, OSError) as exc:
                log.warning("task %s: %s event not published: %r", task_id, error.value, exc)
    return failed


def _stale(stale_before: Any) -> Any:
    return or_(
        Task.heartbeat_at < stale_before,
        and_(Task.heartbeat_at.is_(None), Task.updated_at < stale_before),
    )


async def reap_once(
    session_factory: SessionFactory, *, timeout_s: float, bus: EventBus | None = None
) -> list[str]:
    """Mark live tasks with no heartbeat for `timeout_s` as failed/worker_lost; their ids."""
    stale_before = utcnow() - timedelta(seconds=timeout_s)
    stale = _stale(stale_before)
    async with session_factory() as s:
        ids = await s.execute(select(Task.id).where(Task.status.in_(LIVE_STATUSES), stale))
        candidates = sorted(ids.scalars())
    detail = f"no heartbeat since before {stale_before.isoformat()}"
    return await _fail_each(
        session_factory,
        candidates,
        error=ErrorCode.worker_lost,
        detail=detail,
        where=(stale,),  # re-checked in the update: a late heartbeat keeps the task
        bus=bus,
    )


async def interrupt_tasks(
    session_factory: SessionFactory, *, worker_ids: list[str], bus: EventBus | None = None
) -> list[str]:
    """Fail the live tasks of workers stopped mid-task as failed/interrupted, and announce it.

    The supervisor calls this after killing a worker that outlived its shutdown grace, so no
    task is left `running` until the reaper notices the missing heartbeat.
    """
    detail = "the worker was stopped before the task finished (shutdown grace)"
    return await fail_worker_tasks(
        session_factory, worker_ids=worker_ids, error=ErrorCode.interrupted, detail=detail, bus=bus
    )


async def fail_worker_tasks(
    session_factory: SessionFactory,
    *,
    worker_ids: list[str],
    error: ErrorCode,
    detail: str,
    bus: EventBus | None = None,
) -> list[str]:
    """Fail the live tasks of the given workers with `error`, and announce each one.

    Used when the worker is known to be gone: stopped after its grace (`interrupted`) or a
    worker process that died under the supervisor (`worker_lost`, without waiting for the
    heartbeat timeout). The task is never re-run: it may have acted on the web already.
    """
    owned = Task.worker_id.in_(worker_ids)
    async with session_factory() as s:
        ids = await s.execute(select(Task.id).where(owned, Task.status.in_(LIVE_STATUSES)))
        candidates = sorted(ids.scalars())
    return await _fail_each(
        session_factory, candidates, error=error, detail=detail, where=(owned,), bus=bus
    )


async def count_overdue(session_factory: SessionFactory) -> int:
    """Live tasks started longer ago than their timeout (the worker should have stopped
    them): the `webagent_tasks_running_overdue` gauge, for the stuck-task alert."""
    now = utcnow()
    async with session_factory() as s:
        rows = await s.execute(
            select(Task.started_at, Task.timeout_s).where(
                Task.status.in_(LIVE_STATUSES), Task.started_at.is_not(None)
            )
        )
        overdue = sum(1 for started, timeout in rows if started + timedelta(seconds=timeout) < now)
    metrics.set_tasks_overdue(overdue)
    return overdue


async def reap_explorations(session_factory: SessionFactory, *, timeout_s: float) -> int:
    """Site explorations whose worker stopped heartbeating for `timeout_s`: failed."""
    async with session_factory() as s:
        reaped = await repositories.reap_lost_explorations(
            s, stale_before=utcnow() - timedelta(seconds=timeout_s)
        )
        await s.commit()
    return reaped


async def run_reaper(
    session_factory: SessionFactory,
    *,
    timeout_s: float,
    interval_s: float,
    bus: EventBus | None = None,
) -> None:
    """Reap forever (until cancelled); a DB outage skips a round instead of ending the loop."""
    while True:
        try:
            await reap_once(session_factory, timeout_s=timeout_s, bus=bus)
            await reap_explorations(session_factory, timeout_s=timeout_s)
            await count_overdue(session_factory)
        except (SQLAlchemyError, RedisError, OSError) as exc:
            log.warning("reaper round failed: %s", exc)
        await asyncio.sleep(interval_s)
