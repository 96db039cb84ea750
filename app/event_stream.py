"""The DB side of SSE: replay-then-tail through a bounded share of the API's DB pool.

Every stream of one API process reads the database through one `ReplayGate`: at most
`limit` reads run at a time and the others wait for a slot, never for a pooled connection
(whose checkout times out and ends the stream with a 500/503). Streams that ask for the
same read (a task's visibility at open, a page of its events) while one is still waiting
for a slot share it, so 2,000 streams opening on one task cost a few reads, not 4,000.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, Awaitable, Callable, Hashable
from typing import Any, TypeVar

from app.contracts import Event, EventType, TaskStatus
from app.db import repositories
from app.events import EventBus, SessionFactory, event_from_row

T = TypeVar("T")
IDLE_POLL_SHARE_S = 1.0  # an idle re-poll may use a read of the same page this recent
RECENT_READS = 4096  # finished reads kept for idle re-polls (cleared when full)
Page = tuple[list[Event], bool]  # events after a seq, and whether the task was terminal


class _Read:
    """One pending or running read; joinable until it takes its slot."""

    def __init__(self) -> None:
        self.started = False
        self.done_at: float | None = None  # loop time the read finished
        self.task: asyncio.Task[Any] | None = None


class ReplayGate:
    """Bounded, shared DB reads for the SSE streams of one event loop."""

    def __init__(self, session_factory: SessionFactory, limit: int) -> None:
        self.session_factory = session_factory
        self._slots = asyncio.Semaphore(limit)
        self._pending: dict[Hashable, _Read] = {}
        self._recent: dict[Hashable, _Read] = {}  # the last finished read of each key
        self.reads = 0  # reads that ran (shared ones count once)

    async def page(
        self, task_id: str, after_seq: int, limit: int, max_age: float | None = None
    ) -> Page:
        """Persisted events after `after_seq`, and whether the task was terminal.

        With `max_age` (an idle re-poll, a safety net for lost publishes) any running read
        of the page, or one finished that many seconds ago, will do: 2,000 idle streams on
        a task then cost one read per `max_age`, not 400 a second.
        """
        return await self._shared(
            ("page", task_id, after_seq, limit),
            lambda: _fetch_after(self.session_factory, task_id, after_seq, limit),
            max_age,
        )

    async def visible(self, task_id: str, tenant: str) -> bool:
        """Whether the tenant may see the task (checked when a stream opens)."""
        return await self._shared(("task", task_id, tenant), lambda: _exists(self, task_id, tenant))

    async def _shared(
        self, key: Hashable, read: Callable[[], Awaitable[T]], max_age: float | None = None
    ) -> T:
        """Run `read` in a slot, or join the same read while it still waits for one: it then
        sees everything committed before this call, as a read of its own would. With
        `max_age`, a running read or one finished within `max_age` seconds is shared too."""
        if max_age is not None:
            recent = self._recent.get(key)
            now = asyncio.get_running_loop().time()
            if (
                recent is not None
                and recent.done_at is not None
                and recent.done_at >= now - max_age
            ):
                assert recent.task is not None
                return await asyncio.shield(recent.task)
        pending = self._pending.get(key)
        if pending is None or (pending.started and max_age is None):
            pending = _Read()
            self._pending[key] = pending
            pending.task = asyncio.ensure_future(self._run(key, pending, read))
            pending.task.add_done_callback(_retrieve)
        assert pending.task is not None
        return await asyncio.shield(pending.task)  # a disconnecting stream leaves it to others

    async def _run(self, key: Hashable, pending: _Read, read: Callable[[], Awaitable[T]]) -> T:
        try:
            async with self._slots:
                pending.started = True
                self.reads += 1
                result = await read()
            pending.done_at = asyncio.get_running_loop().time()
            if len(self._recent) >= RECENT_READS:
                self._recent.clear()
            self._recent[key] = pending
            return result
        finally:
            if self._pending.get(key) is pending:
                del self._pending[key]


async def _exists(gate: ReplayGate, task_id: str, tenant: str) -> bool:
    async with gate.session_factory() as session:
        return await repositories.get_task(session, task_id=task_id, tenant_id=tenant) is not None


def _retrieve(task: asyncio.Task[Any]) -> None:
    """Mark a failed shared read's error as seen (its readers may all have left)."""
    if not task.cancelled():
        task.exception()


async def _fetch_after(
    session_factory: SessionFactory, task_id: str, after_seq: int, limit: int
) -> Page:
    """One page of persisted events after `after_seq`, and whether the task was terminal.

    The status is read before the events, so "terminal" implies the page already holds
    every event written before the terminal status was committed.
    """
    async with session_factory() as session:
        task = await repositories.get_task(session, task_id=task_id)
        rows = await repositories.list_events(
            session, task_id=task_id, after_seq=after_seq, limit=limit
        )
    terminal = task is None or TaskStatus(task.status).terminal
    return [event_from_row(r) for r in rows], terminal


class _Cursor:
    """Stream position shared by the replay helpers."""

    def __init__(self, after_seq: int) -> None:
        self.last = after_seq
        self.finished = False
        self.terminal = False


async def _drain(
    gate: ReplayGate, task_id: str, cur: _Cursor, page_size: int, max_age: float | None = None
) -> AsyncGenerator[Event, None]:
    """Yield every persisted event after cur.last; sets cur.terminal/cur.finished."""
    while True:
        events, terminal = await gate.page(task_id, cur.last, page_size, max_age)
        for event in events:
            yield event
            cur.last = event.seq
            if event.type == EventType.task_finished:
                cur.finished = True
                return
        if len(events) < page_size:
            cur.terminal = terminal
            return


async def stream_events(
    task_id: str,
    after_seq: int,
    *,
    gate: ReplayGate,
    bus: EventBus,
    poll_s: float = 5.0,
    page_size: int = 500,
    on_live: Callable[[], None] | None = None,
) -> AsyncGenerator[list[Event], None]:
    """Replay from the DB after `after_seq`, then tail live with no gap and no duplicate.

    Yields batches: a stream that fell behind sends what is waiting in one write instead of
    one per event (with 2,000 streams the per-write cost is what queues events). Subscribes
    before the first DB query; live events at or below the last sent seq are skipped, a
    jump ahead is backfilled from the DB, and an idle `poll_s` re-drains the DB so a lost
    publish cannot stall the stream. Ends after task.finished, or when the task is terminal
    and everything persisted has been sent. No DB connection is held between reads.
    """
    cur = _Cursor(after_seq)
    async with bus.subscribe(task_id) as live:
        batch: list[Event] = []
        async for old in _drain(gate, task_id, cur, page_size):
            batch.append(old)
            if len(batch) >= page_size:
                yield batch
                batch = []
        if batch:
            yield batch
        if on_live is not None:
            on_live()
        while not (cur.finished or cur.terminal):
            first = await live.next(timeout=poll_s)
            batch = await _live_batch(gate, task_id, cur, page_size, [first, *live.ready()])
            if batch:
                yield batch


async def _live_batch(
    gate: ReplayGate, task_id: str, cur: _Cursor, page_size: int, live: list[Event | None]
) -> list[Event]:
    """What to send for these live events (None: the bus was quiet), in seq order."""
    batch: list[Event] = []
    for event in live:
        if cur.finished or (event is not None and event.seq <= cur.last):
            continue
        if event is None or event.seq > cur.last + 1:  # idle re-poll, or a gap to backfill
            max_age = IDLE_POLL_SHARE_S if event is None else None
            drained = _drain(gate, task_id, cur, page_size, max_age)
            batch.extend([old async for old in drained])
            if event is None or event.seq <= cur.last or cur.finished:
                continue
        batch.append(event)
        cur.last = event.seq
        cur.finished = event.type == EventType.task_finished
    return batch
