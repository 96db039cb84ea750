"""The only way events leave a worker: durable DB row first, then the live bus.

The DB is the source of truth (SSE replays from it), so a publish that fails after the
commit only delays live viewers until their reader backfills from the DB.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable, Mapping
from typing import Any

from redis.exceptions import RedisError

from app.contracts import Event
from app.db import repositories
from app.db.types import utcnow
from app.events import EventBus

log = logging.getLogger(__name__)

SessionFactory = Callable[[], Any]  # async_sessionmaker[AsyncSession]
SCREENSHOT_KIND = "screenshot"


def json_safe(data: Mapping[str, Any]) -> dict[str, Any]:
    """Plain JSON values only (tuples become lists, unknown objects their str())."""
    safe: dict[str, Any] = json.loads(json.dumps(dict(data), default=str))
    return safe


class DbEventSink:
    """EventSink for one task: assigns seq, writes + commits the row, then publishes."""

    def __init__(
        self, session_factory: SessionFactory, bus: EventBus, task_id: str, tenant_id: str
    ) -> None:
        self._sessions = session_factory
        self._bus = bus
        self.task_id = task_id
        self.tenant_id = tenant_id
        self._next_seq: int | None = None
        self._lock = asyncio.Lock()  # seq order == commit order == publish order

    @property
    def last_seq(self) -> int:
        return 0 if self._next_seq is None else self._next_seq - 1

    async def emit(self, type: str, data: Mapping[str, Any]) -> None:
        payload = json_safe(data)
        async with self._lock:
            async with self._sessions() as s:
                if self._next_seq is None:
                    self._next_seq = await repositories.next_event_seq(s, task_id=self.task_id)
                seq = self._next_seq
                row = await repositories.append_event(
                    s, task_id=self.task_id, seq=seq, type=str(type), data=payload, ts=utcnow()
                )
                await s.commit()
            self._next_seq = seq + 1
            event = Event(
                id=str(row.id),
                task_id=self.task_id,
                seq=seq,
                ts=row.ts,
                type=str(type),
                data=payload,
            )
            await publish_quietly(self._bus, event)

    async def save_screenshot(self, step: int, jpeg: bytes) -> None:
        async with self._sessions() as s:
            await repositories.save_artifact(
                s,
                task_id=self.task_id,
                tenant_id=self.tenant_id,
                kind=SCREENSHOT_KIND,
                step=step,
                content_type="image/jpeg",
                data=jpeg,
            )
            await s.commit()

    async def cancel_requested(self) -> bool:
        async with self._sessions() as s:
            return bool(await repositories.is_cancel_requested(s, task_id=self.task_id))


async def publish_quietly(bus: EventBus, event: Event) -> None:
    """Publish after the commit; a bus outage is logged, never fatal (the DB has the event)."""
    try:
        await bus.publish(event)
    except (RedisError, OSError) as exc:
        log.warning("live publish of %s seq %d failed: %s", event.task_id, event.seq, exc)
