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
from sqlalchemy import update
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


async def _announce(
    session_factory: SessionFactory,
    bus: EventBus | None,
    task_id: str,
    error: ErrorCode = ErrorCode.worker_lost,
) -> None:
    """Write the terminal event row, then publish it (DB first, like the worker's sink)."""
    async with session_factory() as s:
        task = await repositories.get_task(s, task_id=task_id)
        if task is None:
            return
        seq = await repositories.next_event_seq(s, task_id=task_id)
        data = _finished_data(task, error)
        row = await repositories.append_event(
            s, task_id=task_id, seq=seq, type=EventType.task_finished.value, data=data, ts=utcnow()
        )
        await s.commit()
        event = Event(id=str(row.id), task_id=task_id, seq=seq, ts=row.ts, type=row.type, data=data)
    metrics.task_finished(TaskStatus.failed.value, None)
    if bus is not None:
        await bus.publish(event)


async def reap_once(
    session_factory: SessionFactory, *, timeout_s: float, bus: EventBus | None = None
) -> list[str]:
    """Mark live tasks with no heartbeat for `timeout_s` as failed/worker_lost; their ids."""
    stale_before = utcnow() - timedelta(seconds=timeout_s)
    async with session_factory() as s:
        reaped = await repositories.reap_lost_tasks(s, stale_before=stale_before)
        await s.commit()
    for task_id in reaped:
        log.warning("task %s lost its worker (no heartbeat for %.0fs)", task_id, timeout_s)
        metrics.task_lost()
        try:
            await _announce(session_factory, bus, task_id)
        except IntegrityError:
            # the dying worker wrote an event with the same seq: the row is terminal anyway
            log.warning("task %s: worker_lost event not written (seq taken)", task_id)
        except (SQLAlchemyError, RedisError, OSError) as exc:
            # one task's failure must not cost the others their terminal event; a failed
            # publish is harmless (the row is committed first and SSE replays from the DB)
            log.warning("task %s: worker_lost event not announced: %r", task_id, exc)
    return reaped


async def interrupt_tasks(
    session_factory: SessionFactory, *, worker_ids: list[str], bus: EventBus | None = None
) -> list[str]:
    """Fail the live tasks of workers stopped mid-task as failed/interrupted, and announce it.

    The supervisor calls this after killing a worker that outlived its shutdown grace, so no
    task is left `running` until the reaper notices the missing heartbeat.
    """
    now = utcnow()
    stmt = (
        update(Task)
        .where(Task.worker_id.in_(worker_ids), Task.status.in_(LIVE_STATUSES))
        .values(
            status=TaskStatus.failed.value,
            success=False,
            error=ErrorCode.interrupted.value,
            error_detail="the worker was stopped before the task finished (shutdown grace)",
            finished_at=now,
            updated_at=now,
        )
        .returning(Task.id)
        .execution_options(synchronize_session=False)
    )
    async with session_factory() as s:
        interrupted = sorted((await s.execute(stmt)).scalars())
        await s.commit()
    for task_id in interrupted:
        log.warning("task %s interrupted: its worker was stopped mid-task", task_id)
        try:
            await _announce(session_factory, bus, task_id, ErrorCode.interrupted)
        except (SQLAlchemyError, RedisError, OSError) as exc:
            log.warning("task %s: interrupted event not announced: %r", task_id, exc)
    return interrupted


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
        except (SQLAlchemyError, RedisError, OSError) as exc:
            log.warning("reaper round failed: %s", exc)
        await asyncio.sleep(interval_s)
