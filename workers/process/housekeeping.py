"""The periodic chores of a service process: the liveness reaper, the retention pruner and
the sweep of per-task scratch folders, all on one event loop.

They run in the API process (embedded and API-only deployments) and in every
`webagent worker` supervisor; each is safe to run in several processes at once.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.exc import SQLAlchemyError

from app.db import Task
from app.db.repo_tasks import LIVE_STATUSES
from app.events import EventBus
from app.reaper import run_reaper
from app.retention import RetentionPolicy, run_pruner
from app.settings import Settings
from app.store import open_store
from workers.process.scratch import last_change, remove_task_dir, scratch_root, task_dirs

log = logging.getLogger(__name__)

SessionFactory = Callable[[], Any]  # async_sessionmaker[AsyncSession]


async def sweep_scratch(
    session_factory: SessionFactory, root: Path, *, idle_s: float = 0.0, now: float | None = None
) -> list[str]:
    """Remove the scratch folders of tasks this database knows and that are not live
    (finished, reaped); the ids removed. A folder of a live task stays: its job removes it.
    A folder of a task this database does not know (deleted, or a task of another
    deployment that shares the root: issue 31 item 1, where another service's sweep removed
    a running task's downloads) is removed only once nothing in it changed for `idle_s`."""
    found = task_dirs(root)
    if not found:
        return []
    async with session_factory() as s:
        rows = (await s.execute(select(Task.id, Task.status).where(Task.id.in_(found)))).all()
    known = {task_id: status for task_id, status in rows}
    cutoff = (time.time() if now is None else now) - idle_s
    # a task claimed between the listing and the query is live now: listed before, kept
    gone = [
        task_id
        for task_id in found
        if (task_id in known and known[task_id] not in LIVE_STATUSES)
        or (task_id not in known and last_change(root / task_id) < cutoff)
    ]
    return [task_id for task_id in gone if remove_task_dir(root, task_id)]


async def run_sweeper(
    session_factory: SessionFactory, root: Path, interval_s: float, idle_s: float = 0.0
) -> None:
    while True:
        try:
            removed = await sweep_scratch(session_factory, root, idle_s=idle_s)
            if removed:
                log.info("removed %d scratch folder(s) of ended tasks", len(removed))
        except (SQLAlchemyError, OSError) as exc:
            log.warning("scratch sweep failed: %s", exc)
        await asyncio.sleep(interval_s)


async def run_housekeeping(
    session_factory: SessionFactory, settings: Settings, bus: EventBus | None
) -> None:
    """Reaper, pruner and sweeper until cancelled."""
    root = scratch_root(settings.task_files_dir, settings.effective_database_url)
    await asyncio.gather(
        run_reaper(
            session_factory,
            timeout_s=settings.heartbeat_timeout_s,
            interval_s=settings.reaper_interval_s,
            bus=bus,
        ),
        run_pruner(session_factory, RetentionPolicy.of(settings), open_store(settings)),
        # a task of another deployment may run for up to max_timeout_s
        run_sweeper(session_factory, root, settings.reaper_interval_s, settings.max_timeout_s),
    )
