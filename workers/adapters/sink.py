"""The only way events leave a worker: durable DB row first, then the live bus.

The DB is the source of truth (SSE replays from it), so a publish that fails after the
commit only delays live viewers until their reader backfills from the DB.

Write-behind (workers/adapters/write_behind.py; seven rows a step cost the loop ~30 ms): `emit`
queues the event and returns; the sink's writer commits them in order (seq order == commit
order == publish order), retrying across a short outage; while it retries, `emit` waits for
it, so a run does not act on with its record in memory only. `flush()` returns once
everything emitted is committed; `emit_final` waits for the writer before the final row, so
`task.finished` is always the last event. A write that fails for good is raised by the next
`emit` or `flush`, so the run still ends on it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import Any, TypeVar

from redis.exceptions import RedisError
from sqlalchemy.exc import (
    IntegrityError,
    SQLAlchemyError,
)

from app import metrics
from app.contracts import Event, EventType, Usage
from app.db import repositories
from app.db.types import utcnow
from app.events import EventBus
from app.store import ArtifactStore
from app.store.records import keep_artifact
from workers.adapters.outage import OUTAGE_ERRORS, retry_outage
from workers.adapters.secrets import SecretVault
from workers.adapters.write_behind import WriteBehind
from workers.agent.loop.metered import Prices
from workers.agent.tools import TOOLS

log = logging.getLogger(__name__)

SessionFactory = Callable[[], Any]  # async_sessionmaker[AsyncSession]
Pending = tuple[str, dict[str, Any], dict[str, Any] | None]  # type, payload, usage so far
SCREENSHOT_KIND = "screenshot"
DOWNLOAD_KIND = "download"  # files the page produced (workers/browser/act/files.py)
TAKEOVER_KIND = "takeover"  # the page at a person's hand-back (workers/agent/people/takeover.py)
TRACE_KIND = "trace"  # the run's Playwright trace (workers/browser/runtime/tracing.py)
TRACE_NAME = "trace.zip"
T = TypeVar("T")
# label values of webagent_step_duration_seconds: the tool names, never model-chosen text
STEP_ACTIONS = frozenset(TOOLS)  # every registered tool, offered by default or not


def json_safe(data: Mapping[str, Any]) -> dict[str, Any]:
    """Plain JSON values only (tuples become lists, unknown objects their str())."""
    safe: dict[str, Any] = json.loads(json.dumps(dict(data), default=str))
    return safe


class StepTimer:
    """Times agent steps from the event stream, one sample per executed action: from the
    step's start (observe + LLM + first action) or the previous action's end to this
    action's end. A step that ran no action (nudged) is one "none" sample to its end."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._step: int | None = None
        self._mark = 0.0  # step start, then the end of its latest action
        self._actions = 0

    def saw(self, type: str, data: Mapping[str, Any]) -> None:
        now = self._clock()
        if type == EventType.action_executed and data.get("step") == self._step:
            name = data.get("action")
            metrics.observe_step(str(name) if name in STEP_ACTIONS else "invalid", now - self._mark)
            self._mark, self._actions = now, self._actions + 1
        elif type in (EventType.step_started, EventType.task_finished):
            if self._step is not None and not self._actions:
                metrics.observe_step("none", now - self._mark)
            self._step = data.get("step") if type == EventType.step_started else None
            self._mark, self._actions = now, 0


class UsageMeter:
    """Running usage read off the events, so the task row shows it while the task runs
    and a run stopped mid-step (hard timeout) still reports what it consumed."""

    def __init__(self) -> None:
        self.usage = Usage()

    def saw(self, type: str, data: Mapping[str, Any]) -> bool:
        """Count the event; True when the usage changed."""
        if type == EventType.step_started and isinstance(data.get("step"), int):
            self.usage.steps = max(self.usage.steps, data["step"])
            return True
        if type == EventType.llm_call:
            self.usage.llm_calls += 1
            self.usage.input_tokens += int(data.get("input_tokens") or 0)
            self.usage.output_tokens += int(data.get("output_tokens") or 0)
            return True
        return False


class DbEventSink:
    """EventSink for one task: assigns seq, writes + commits the row, then publishes."""

    def __init__(
        self,
        session_factory: SessionFactory,
        bus: EventBus,
        task_id: str,
        tenant_id: str,
        vault: SecretVault | None = None,
        prices: Prices | None = None,
        *,
        store: ArtifactStore | None = None,
    ) -> None:
        self.store = store  # where screenshots, downloads and the trace go (app/store)
        self.vault = vault or SecretVault()  # every payload is redacted of the task's secrets
        self._sessions = session_factory
        self._bus = bus
        self.task_id = task_id
        self.tenant_id = tenant_id
        self._next_seq: int | None = None
        self._lock = asyncio.Lock()  # seq order == commit order == publish order
        self._steps = StepTimer()
        self.meter = UsageMeter()
        self.prices = prices  # llm.call events gain cost_usd, counted by model and tenant
        self._files = 0  # downloads stored so far (their artifact numbers)
        self._writes = WriteBehind(f"events {task_id}", (SQLAlchemyError, OSError))
        # events emitted but not yet taken by the writer: committed together, one transaction
        # (issue 35: a commit per event was the worker loop's largest CPU cost per step)
        self._pending: list[Pending] = []
        self._stalled = False  # the writer is retrying across an outage
        self.cancel_checked_at = 0.0  # time.monotonic() of the latest cancel check

    @property
    def last_seq(self) -> int:
        return 0 if self._next_seq is None else self._next_seq - 1

    async def emit(self, type: str, data: Mapping[str, Any]) -> None:
        """Queue the event for the writer (durable once `flush()` returns)."""
        self._writes.raise_failure()
        payload = self.vault.redact(json_safe(data))
        if type == EventType.llm_call:
            payload = self._priced(payload)
        self._steps.saw(str(type), payload)  # timed when it happened, not when written
        usage = self.meter.usage.model_dump() if self.meter.saw(str(type), payload) else None
        self._pending.append((str(type), payload, usage))
        if len(self._pending) == 1:  # else the queued batch job takes this one along
            self._writes.submit(self._commit)
        if self._stalled:  # the database is away: the run waits with its events, as it did
            await self.flush()

    def _priced(self, payload: dict[str, Any]) -> dict[str, Any]:
        """An llm.call payload with its USD cost (when priced), counted on /metrics."""
        if self.prices is None or "cost_usd" in payload:
            return payload
        model = str(payload.get("model") or "")
        usd = self.prices.cost(
            str(payload.get("role") or ""),
            model,
            int(payload.get("input_tokens") or 0),
            int(payload.get("output_tokens") or 0),
        )
        if usd is None:
            return payload
        metrics.llm_cost(model, self.tenant_id, usd)
        return {**payload, "cost_usd": round(usd, 8)}

    async def flush(self) -> None:
        """Return once every emitted event is committed (and published); raise a failed write."""
        await self._writes.flush()

    async def _commit(self) -> None:
        """The writer's job: the events pending now, committed in one transaction (across a
        short outage), then published in seq order. A batch that fails for good drops the
        events emitted after it too (their job is dropped with it: write_behind.py)."""
        batch, self._pending = self._pending, []
        write = partial(self._write_batch, batch)
        try:
            async with self._lock:
                events = await retry_outage(write, f"{self.task_id} {batch[0][0]}")
        except BaseException:
            self._pending.clear()
            raise
        finally:
            self._stalled = False
        for event in events:
            await publish_quietly(self._bus, event)

    async def _write_batch(self, batch: list[Pending], retry: int) -> list[Event]:
        """One transaction for the batch; a retried batch whose commit went through (its
        answer was lost) is read back instead of written twice."""
        self._stalled = retry > 0
        try:
            return await self._write_rows(batch)
        except IntegrityError:
            seq = self._next_seq
            if retry == 0 or seq is None:
                raise
            row = await self._row(seq)
            if row is None or row.type != batch[0][0]:
                raise
            async with self._sessions() as s:
                rows = await repositories.list_events(
                    s, task_id=self.task_id, after_seq=seq - 1, limit=len(batch)
                )
            self._next_seq = seq + len(batch)
            return [repositories.event_to_contract(r) for r in rows]

    async def _write_rows(self, batch: list[Pending]) -> list[Event]:
        usage = next((u for _, _, u in reversed(batch) if u is not None), None)
        async with self._sessions() as s:
            if self._next_seq is None:
                self._next_seq = await repositories.next_event_seq(s, task_id=self.task_id)
            first = self._next_seq
            rows = [
                await repositories.append_event(
                    s, task_id=self.task_id, seq=first + k, type=type, data=payload, ts=utcnow()
                )
                for k, (type, payload, _) in enumerate(batch)
            ]
            if usage is not None:  # same transaction: the row never disagrees with its events
                await repositories.update_usage(s, task_id=self.task_id, **usage)
            await s.commit()
        self._next_seq = first + len(batch)
        return [
            Event(id=str(r.id), task_id=self.task_id, seq=r.seq, ts=r.ts, type=r.type, data=r.data)
            for r in rows
        ]

    async def emit_final(
        self, data: Mapping[str, Any], record: Callable[[Any], Awaitable[bool]]
    ) -> bool:
        """task.finished, written in the transaction in which `record(session)` stores the
        task's outcome: an SSE reader never finds the task terminal without its final event
        (the stream ends at a terminal status once every persisted event is sent). False,
        and nothing written, when `record` finds the task terminal already (reaped)."""
        await self._writes.settle()
        payload = self.vault.redact(json_safe(data))
        type = EventType.task_finished.value
        async with self._lock:
            self._steps.saw(type, payload)
            write = partial(self._write_once, type, payload, None, record=record)
            pending = asyncio.ensure_future(retry_outage(write, f"{self.task_id} {type}"))
            try:
                event = await asyncio.shield(pending)
            except asyncio.CancelledError:
                await asyncio.wait({pending})
                raise
            if event is None:
                return False
            await publish_quietly(self._bus, event)
            return True

    async def _write_once(
        self,
        type: str,
        payload: dict[str, Any],
        usage: dict[str, Any] | None,
        retry: int,
        record: Callable[[Any], Awaitable[bool]] | None = None,
    ) -> Any:
        self._stalled = retry > 0
        try:
            return await self._write(type, payload, usage, record)
        except IntegrityError:
            # a retried write whose earlier commit went through (its answer was lost): done
            seq = self._next_seq
            if retry == 0 or seq is None:
                raise
            row = await self._row(seq)
            if row is None or row.type != type:
                raise
            self._next_seq = seq + 1
            return repositories.event_to_contract(row)

    async def _row(self, seq: int) -> Any:
        async with self._sessions() as s:
            rows = await repositories.list_events(s, task_id=self.task_id, after_seq=seq - 1)
        return next((r for r in rows if r.seq == seq), None)

    async def _write(
        self,
        type: str,
        payload: dict[str, Any],
        usage: dict[str, Any] | None,
        record: Callable[[Any], Awaitable[bool]] | None = None,
    ) -> Event | None:
        async with self._sessions() as s:
            if record is not None and not await record(s):
                await s.rollback()
                return None  # the task is terminal already: nothing to announce
            if self._next_seq is None:
                self._next_seq = await repositories.next_event_seq(s, task_id=self.task_id)
            seq = self._next_seq
            row = await repositories.append_event(
                s, task_id=self.task_id, seq=seq, type=type, data=payload, ts=utcnow()
            )
            if usage is not None:  # same transaction: the row never disagrees with its events
                await repositories.update_usage(s, task_id=self.task_id, **usage)
            await s.commit()
        self._next_seq = seq + 1
        return Event(
            id=str(row.id), task_id=self.task_id, seq=seq, ts=row.ts, type=type, data=payload
        )

    async def save_screenshot(self, step: int, jpeg: bytes) -> None:
        save = partial(_ignore_retry, partial(self._save_screenshot, step, jpeg))
        await asyncio.shield(retry_outage(save, f"{self.task_id} screenshot {step}"))

    async def _save_screenshot(self, step: int, jpeg: bytes) -> None:
        await self._keep(SCREENSHOT_KIND, step, "image/jpeg", jpeg)

    async def save_takeover_shot(self, number: int, jpeg: bytes) -> str | None:
        """The page when a person handed it back, artifact kind "takeover" (step = the
        takeover's number in the run); its artifact id, None when it could not be kept."""
        keep = partial(
            _ignore_retry, partial(self._keep, TAKEOVER_KIND, number, "image/jpeg", jpeg)
        )
        return await asyncio.shield(retry_outage(keep, f"{self.task_id} takeover {number}"))

    async def save_file(self, name: str, content_type: str, data: bytes) -> None:
        """A file the page produced (download, printed PDF) as artifact kind "download",
        numbered 1, 2, ... in the order the task kept them."""
        self._files += 1
        number = self._files
        save = partial(
            _ignore_retry, partial(self._keep, DOWNLOAD_KIND, number, content_type, data, name)
        )
        await asyncio.shield(retry_outage(save, f"{self.task_id} download {number}"))

    async def save_trace(self, data: bytes) -> str:
        """The run's Playwright trace as artifact kind "trace" (step 1); its artifact id."""
        save = partial(
            _ignore_retry, partial(self._keep, TRACE_KIND, 1, "application/zip", data, TRACE_NAME)
        )
        return await asyncio.shield(retry_outage(save, f"{self.task_id} trace"))

    async def _keep(
        self, kind: str, step: int, content_type: str, data: bytes, name: str | None = None
    ) -> str:
        if self.store is None:
            raise RuntimeError("DbEventSink was built without an artifact store")
        async with self._sessions() as s:
            artifact_id = await keep_artifact(
                s,
                self.store,
                task_id=self.task_id,
                tenant_id=self.tenant_id,
                kind=kind,
                step=step,
                content_type=content_type,
                data=data,
                name=name,
            )
            await s.commit()
        return artifact_id

    async def cancel_requested(self) -> bool:
        """False while the database is unreachable: no cancel can be accepted then either."""
        self.cancel_checked_at = (
            time.monotonic()
        )  # workers/process/cancellation.py: counts as a poll
        try:
            async with self._sessions() as s:
                return bool(await repositories.is_cancel_requested(s, task_id=self.task_id))
        except OUTAGE_ERRORS as exc:
            log.warning("cancel check for %s failed: %r", self.task_id, exc)
            return False


async def _ignore_retry(fn: Callable[[], Awaitable[T]], retry: int) -> T:
    return await fn()


async def publish_quietly(bus: EventBus, event: Event) -> None:
    """Publish after the commit; a bus outage is logged, never fatal (the DB has the event)."""
    try:
        await bus.publish(event)
    except (RedisError, OSError) as exc:
        log.warning("live publish of %s seq %d failed: %s", event.task_id, event.seq, exc)
