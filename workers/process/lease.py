"""The job boundary both queued jobs share (`workers.jobs.run_task`,
`workers.exploration_job.run_exploration`): claim the row, run it within its time budget on
the process's WorkerRuntime, and heartbeat while it runs.

`run_claimed` is the rq entry shape: claim (a conditional UPDATE; None when the row is not
queued any more), then the work with `budget_s(row) + FINISH_GRACE_S`. `heartbeat` is the
lease: it refreshes the row in the background and, once a beat finds the row no longer this
worker's (reaped, cancelled, taken), cancels the body at once — mid model call, mid click —
and raises OwnershipLost: a worker must not act on a website for a job it no longer owns.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any, TypeVar

from sqlalchemy.exc import SQLAlchemyError

from workers.process.runtime import WorkerRuntime

log = logging.getLogger(__name__)

CLAIM_TIMEOUT_S = 60.0
# after a job's own budget it is stopped hard; this leaves time to persist and announce
FINISH_GRACE_S = 30.0

Row = TypeVar("Row")


class OwnershipLost(Exception):
    """The heartbeat found the row no longer live or owned by this worker."""


def run_claimed(
    rt: WorkerRuntime,
    what: str,
    row_id: str,
    claim: Callable[[WorkerRuntime, str], Coroutine[Any, Any, Row | None]],
    work: Callable[[WorkerRuntime, Row], Coroutine[Any, Any, None]],
    budget_s: Callable[[Row], float],
    *,
    cleanup: Callable[[Row], object] | None = None,
) -> None:
    """Claim `row_id` and run `work` on it; nothing when it is not claimable. `cleanup`
    runs after the work however it ended (its budget too)."""
    row: Row | None = rt.run(lambda: claim(rt, row_id), CLAIM_TIMEOUT_S)
    if row is None:
        log.info("%s %s not claimable (cancelled, finished or taken)", what, row_id)
        return
    claimed: Row = row
    try:
        rt.run(lambda: work(rt, claimed), budget_s(claimed) + FINISH_GRACE_S)
    finally:
        if cleanup is not None:
            cleanup(claimed)


@contextlib.asynccontextmanager
async def heartbeat(
    beat: Callable[[], Awaitable[bool]], *, interval_s: float, name: str
) -> AsyncIterator[None]:
    """Call `beat()` every `interval_s` while the body runs; False from it cancels the body
    and raises OwnershipLost. A beat that fails on the database is retried at the next one;
    a cancel from outside (shutdown, hard timeout) stays a cancel."""
    holder = asyncio.current_task()
    lost = False

    async def beating() -> None:
        nonlocal lost
        while True:
            await asyncio.sleep(interval_s)
            try:
                owned = await asyncio.shield(beat())  # never cut mid-commit
            except (SQLAlchemyError, OSError) as exc:  # a DB blip; the next beat may succeed
                log.warning("heartbeat for %s failed: %s", name, exc)
                continue
            if not owned:
                log.warning("%s is no longer owned by this worker", name)
                lost = True
                if holder is not None:
                    holder.cancel()
                return

    beater = asyncio.create_task(beating(), name=f"heartbeat-{name}")
    try:
        yield
    except asyncio.CancelledError:
        if not lost or holder is None or holder.uncancel() > 0:
            raise
        raise OwnershipLost(name) from None
    finally:
        beater.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await beater
