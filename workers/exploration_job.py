"""`run_exploration(exploration_id)`: the site-exploration job (seed 001 §2.3, App. A.2).

The second job of the queue (app/contracts.py EXPLORE_JOB_FUNC), run by the same workers as
`workers.jobs.run_task` (rq, or the embedded pool): claim the `site_explorations` row, take
a fresh browser context from the pool pinned to the request's allowed_domains (the URL
policy and egress guard apply as for a task), run the deterministic traversal
(workers/browser/act/explore.py, no model calls), heartbeat with its progress, store the
result as the domain's next WebsiteMem version and finish the row. This is the job
boundary: any exception becomes a failed exploration, never a crashed worker.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import Any

from app.contracts import ErrorCode, TaskStatus
from app.db import SiteExploration, repositories
from app.urlpolicy import network_policy
from workers.agent.memory.exploration import ExploreLimits, Explorer
from workers.browser.act.explore import HARD_STOP_SLACK_S, explore_site
from workers.browser.runtime.pool import is_browser_fault
from workers.process import lease, runtime
from workers.process.lease import OwnershipLost
from workers.process.runtime import WorkerRuntime

log = logging.getLogger(__name__)


def run_exploration(exploration_id: str) -> None:
    """Run one queued exploration to a terminal status on this process's WorkerRuntime."""
    lease.run_claimed(
        runtime.current(),
        "exploration",
        exploration_id,
        _claim,
        execute,
        lambda row: float(row.params.get("timeout_s") or 300) + HARD_STOP_SLACK_S,
    )


async def _claim(rt: WorkerRuntime, exploration_id: str) -> SiteExploration | None:
    async with rt.sessions() as s:
        row = await repositories.claim_exploration(
            s, exploration_id=exploration_id, worker_id=rt.worker_id
        )
        await s.commit()
    return row


def limits_of(params: dict[str, Any]) -> ExploreLimits:
    defaults = ExploreLimits()
    return ExploreLimits(
        max_depth=int(params.get("max_depth", defaults.max_depth)),
        max_pages=int(params.get("max_pages", defaults.max_pages)),
        max_elements_per_page=int(
            params.get("max_elements_per_page", defaults.max_elements_per_page)
        ),
        timeout_s=float(params.get("timeout_s", defaults.timeout_s)),
    )


class Progress:
    """The walk's counters, written with the heartbeat every `interval_s`."""

    def __init__(self) -> None:
        self.data: dict[str, Any] = {"pages": 0, "clicks": 0, "skipped": 0, "templates": 0}

    def update(self, explorer: Explorer) -> None:
        last = next(reversed(explorer.pages), "") if explorer.pages else ""
        self.data = {
            "pages": len(explorer.pages),
            "clicks": explorer.clicks,
            "skipped": len(explorer.skipped),
            "templates": len(explorer.templates),
            "last_page": last,
        }


def _heartbeat(
    rt: WorkerRuntime, row: SiteExploration, progress: Progress
) -> contextlib.AbstractAsyncContextManager[None]:
    """Write progress + heartbeat in the background; a row that is no longer ours (reaped,
    cancelled) stops the walk with OwnershipLost (workers/process/lease.py)."""

    async def beat() -> bool:
        async with rt.sessions() as s:
            owned = await repositories.report_progress(
                s, exploration_id=row.id, worker_id=rt.worker_id, progress=progress.data
            )
            await s.commit()
        return owned

    return lease.heartbeat(beat, interval_s=rt.settings.heartbeat_interval_s, name=row.id)


async def execute(rt: WorkerRuntime, row: SiteExploration) -> None:
    """Explore, store the WebsiteMem, finish the row (failed on any error)."""
    params = dict(row.params or {})
    allowed = [str(d) for d in params.get("allowed_domains") or []]
    progress = Progress()
    try:
        async with _heartbeat(rt, row, progress), rt.pool.context(allowed_domains=allowed) as page:
            mem = await explore_site(
                page,
                row.url,
                limits_of(params),
                policy=network_policy(rt.settings),
                allowed_domains=allowed,
                progress=progress.update,
            )
        if not mem.pages:
            await _finish(
                rt, row, TaskStatus.failed, progress, error=ErrorCode.start_page_unreachable,
                detail=f"{row.url} did not load (or left the site)",
            )  # fmt: skip
            return
        async with rt.sessions() as s:  # the WebsiteMem only with the row still ours to finish
            version = await repositories.save_website_mem(
                s,
                tenant_id=row.tenant_id,
                domain=row.domain,
                exploration_id=row.id,
                start_url=row.url,
                data=mem.model_dump(mode="json"),
            )
            progress.data = {**progress.data, **mem.stats}
            finished = await repositories.finish_exploration(
                s,
                exploration_id=row.id,
                status=TaskStatus.succeeded,
                progress=progress.data,
                version=version,
            )
            await (s.commit() if finished else s.rollback())
    except OwnershipLost:
        log.warning("exploration %s: stopped, cancelled or reaped meanwhile", row.id)
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # the job boundary: any failure becomes a failed exploration
        log.exception("exploration %s failed", row.id)
        code = ErrorCode.browser_error if is_browser_fault(exc) else ErrorCode.internal
        await _finish(rt, row, TaskStatus.failed, progress, error=code, detail=f"{exc}"[:500])


async def _finish(
    rt: WorkerRuntime,
    row: SiteExploration,
    status: TaskStatus,
    progress: Progress,
    *,
    error: ErrorCode,
    detail: str,
) -> None:
    async with rt.sessions() as s:
        await repositories.finish_exploration(
            s,
            exploration_id=row.id,
            status=status,
            progress=progress.data,
            error=error.value,
            error_detail=detail,
        )
        await s.commit()
