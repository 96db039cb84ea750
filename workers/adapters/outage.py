"""Riding out a short database outage: `retry_outage(write, what)` calls `write(retry)` until
it succeeds, backing off, for at most RETRY_BUDGET_S; only connection errors are retried.

Used by every write a worker makes while a task runs: events (workers/adapters/sink.py) and Ledger
rows (workers/adapters/memory_store.py), both behind the loop (workers/adapters/write_behind.py).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

log = logging.getLogger(__name__)

T = TypeVar("T")
# database outage: connection refused/reset (asyncpg raises OSError), pool exhausted, dropped
OUTAGE_ERRORS = (OSError, PoolTimeoutError, DBAPIError)
RETRY_BUDGET_S = 60.0  # a short outage (issue 13: 20 s) is waited out; longer ones fail
RETRY_FIRST_DELAY_S = 0.25
RETRY_MAX_DELAY_S = 5.0


async def retry_outage(write: Callable[[int], Awaitable[T]], what: str) -> T:
    """Call `write(retry)` until it succeeds, backing off across a database outage.

    A 20 s Postgres outage used to fail the step's event write, and recording that failure
    needed the database too, so a live worker's task ended `worker_lost`. Only connection
    errors are retried, for at most RETRY_BUDGET_S; anything else raises at once.
    """
    deadline = time.monotonic() + RETRY_BUDGET_S
    delay = RETRY_FIRST_DELAY_S
    retry = 0
    while True:
        try:
            return await write(retry)
        except OUTAGE_ERRORS as exc:
            if isinstance(exc, DBAPIError) and not _is_disconnect(exc):
                raise
            if time.monotonic() + delay > deadline:
                raise
            log.warning("write %s failed (%r); retry in %.2fs", what, exc, delay)
            await asyncio.sleep(delay)
            delay, retry = min(delay * 2, RETRY_MAX_DELAY_S), retry + 1


def _is_disconnect(exc: DBAPIError) -> bool:
    return exc.connection_invalidated or isinstance(exc, OperationalError | InterfaceError)
