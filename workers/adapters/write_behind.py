"""Ordered background writes (issue 13, per-step overhead): the run does not wait for rows.

A step used to hold the agent loop for every row it wrote (about seven events, the Ledger
snapshot, the step outcome, learnings): ~40 ms a step, a third of the framework's overhead.
`WriteBehind.submit(job)` queues a write and returns; one writer task per owner runs the
queue in order, so rows are committed in the order they were submitted. `flush()` returns
once everything submitted has run. A job that fails with one of `errors` drops the jobs
queued after it (they may depend on it: an event's seq) and is raised once, by the next
`submit` or `flush`, so the run still ends on it; `settle()` waits without raising (the
last writes of a run that ends anyway).

Owners: workers/adapters/sink.py (events; its jobs retry across a database outage and the loop waits
while they do) and workers/adapters/memory_store.py (Ledger rows).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Awaitable, Callable

log = logging.getLogger(__name__)

Job = Callable[[], Awaitable[None]]


class WriteBehind:
    """One owner's queue of writes and the task that runs them in order."""

    def __init__(self, name: str, errors: tuple[type[BaseException], ...]) -> None:
        self.name = name
        self._errors = errors
        self._queue: deque[Job] = deque()
        self._writer: asyncio.Task[None] | None = None
        self._failure: BaseException | None = None

    @property
    def pending(self) -> int:
        return len(self._queue)

    def submit(self, job: Job) -> None:
        """Queue `job`; raise the failure of an earlier one (once)."""
        self.raise_failure()
        self._queue.append(job)
        if self._writer is None or self._writer.done():
            self._writer = asyncio.get_running_loop().create_task(self._drain(), name=self.name)

    async def flush(self) -> None:
        """Return once every submitted job has run; raise a failed one (once)."""
        while self._writer is not None and not self._writer.done():
            await asyncio.shield(self._writer)
        self.raise_failure()

    async def settle(self) -> None:
        """`flush()` for the end of a run: a failed write is logged, not raised."""
        try:
            await self.flush()
        except self._errors as exc:
            log.error("%s: writes were lost: %r", self.name, exc)

    def raise_failure(self) -> None:
        failure, self._failure = self._failure, None
        if failure is not None:
            raise failure

    async def _drain(self) -> None:
        while self._queue:
            try:
                await self._queue[0]()
            except self._errors as exc:  # handed to the run by its next submit or flush
                self._failure = exc
                self._queue.clear()
                return
            self._queue.popleft()
