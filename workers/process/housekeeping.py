"""The periodic chores of a service process: the liveness reaper, the retention pruner and
the sweep of per-task scratch folders, all on one event loop.

They run in the API process (embedded and API-only deployments) and in every
`webagent worker` supervisor; each is safe to run in several processes at once.
"""

from __future__ import annotations

import asyncio
import logging
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
from workers.process.scratch import remove_task_dir, scratch_root, task_dirs

log = logging.getLogger(__name__)

SessionFactory = Callable[[], Any]  # async_sessionmaker[AsyncSession]


async def sweep_scratch(session_factory: SessionFactory, root: Path) -> list[str]:
    """Remove the scratch folders of tasks that are not live (finished, reaped, deleted or
    unknown); the ids removed. A folder of a live task stays: its job removes it."""
    found = task_dirs(root)
    if not found:
        return []
    async with session_factory() as s:
        stmt = select(Task.id).where(Task.id.in_(found), Task.status.in_(LIVE_STATUSES))
        live = set((await s.execute(stmt)).scalars())
    # a task claimed between the listing and the query is live now: listed before, kept
    return [task_id for task_id in found if task_id not in live and remove_task_dir(root, task_id)]


async def run_sweeper(session_factory: SessionFactory, root: Path, interval_s: float) -> None:
    while True:
        try:
            removed = await sweep_scratch(session_factory, root)
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
        run_sweeper(session_factory, root, settings.reaper_interval_s),
    )
