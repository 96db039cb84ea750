"""Many SSE streams opening at once on an API whose Postgres pool is far smaller (issue 13).

Before the replay gate, every stream checked out a pooled connection at open (task check,
DB replay, idle re-poll): 2,000 streams on a 10 + 10 pool with a 30 s checkout timeout
ended 115 of them with a 500. Here the pool is two connections with a 50 ms checkout
timeout, so any stream that waits for the pool instead of for an SSE DB slot fails.
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import pytest

from app.db import create_engine, repositories, session_factory
from app.db.migrate import upgrade_async
from app.event_stream import ReplayGate, stream_events
from app.events import MemoryEventBus
from app.main import create_app
from tests.integration.api.conftest import RecordingDispatcher, live_server, make_settings
from tests.integration.workers.conftest import new_task

pytestmark = pytest.mark.services

STREAMS = 150
REPLAYED = 2  # events persisted before the streams open
LIVE = 3  # events emitted once every stream has replayed, the last one task.finished


async def _write(sessions: Any, bus: MemoryEventBus, task_id: str, seq: int, type_: str) -> None:
    """The worker's side, on its own engine: persist, commit, then publish."""
    async with sessions() as s:
        if type_ == "task.finished":
            await repositories.mark_running(s, task_id=task_id, worker_id="test")
            await repositories.finish_task(s, task_id=task_id, status="succeeded", success=True)
        row = await repositories.append_event(s, task_id=task_id, seq=seq, type=type_, data={})
        await s.commit()
        event = repositories.event_to_contract(row)
    await bus.publish(event)


async def _stream(
    client: httpx.AsyncClient, task_id: str, replayed: asyncio.Semaphore
) -> tuple[int, list[int]]:
    """Status and every event id one client reads, until the stream ends."""
    seqs: list[int] = []
    try:
        async with client.stream("GET", f"/v1/tasks/{task_id}/events") as resp:
            if resp.status_code != 200:
                return resp.status_code, seqs
            async for line in resp.aiter_lines():
                if line.startswith("id:"):
                    seqs.append(int(line[3:]))
                    if len(seqs) == REPLAYED:
                        replayed.release()
            return resp.status_code, seqs
    except httpx.HTTPError:  # the stream broke mid-way (500 after the headers)
        return -1, [*seqs, -1]
    finally:
        if len(seqs) < REPLAYED:
            replayed.release()  # never block the test on a stream that already failed


async def test_streams_beyond_the_pool_wait_for_a_slot_and_get_every_event(
    postgres_url: str,
) -> None:
    await upgrade_async(postgres_url)
    settings = make_settings(
        postgres_url,
        db_pool_size=2,  # one for the SSE slot, one for the webhook poller
        db_max_overflow=0,
        db_pool_timeout_s=0.05,
        sse_db_concurrency=1,
        sse_db_poll_s=0.5,  # idle re-polls of every stream join the open storm
    )
    bus = MemoryEventBus()
    app = create_app(settings, dispatcher=RecordingDispatcher(), bus=bus)
    worker_engine = create_engine(postgres_url)
    worker = session_factory(worker_engine)
    limits = httpx.Limits(max_connections=None, max_keepalive_connections=0)
    try:
        async with (
            live_server(app) as base,
            httpx.AsyncClient(base_url=base, timeout=120, limits=limits) as client,
        ):
            task_id = await new_task(worker, start_url=None)
            for seq in range(1, REPLAYED + 1):
                await _write(worker, bus, task_id, seq, "step.started")
            replayed = asyncio.Semaphore(0)
            streams = [
                asyncio.create_task(_stream(client, task_id, replayed)) for _ in range(STREAMS)
            ]
            for _ in range(STREAMS):
                await asyncio.wait_for(replayed.acquire(), 120)
            for seq in range(REPLAYED + 1, REPLAYED + LIVE):
                await _write(worker, bus, task_id, seq, "step.started")
            await _write(worker, bus, task_id, REPLAYED + LIVE, "task.finished")
            results = await asyncio.wait_for(asyncio.gather(*streams), 120)
            reads = app.state.sse_replay_gate.reads
    finally:
        await worker_engine.dispose()
    expected = (200, list(range(1, REPLAYED + LIVE + 1)))
    failed = [r for r in results if r != expected]
    assert not failed, f"{len(failed)} of {STREAMS} streams failed, e.g. {failed[:3]}"
    # streams queued for the same page share one read: fewer reads than streams
    print(f"{reads} DB page reads for {STREAMS} streams")
    assert reads < STREAMS


async def test_a_stream_that_fell_behind_sends_its_backlog_in_one_batch(sqlite_url: str) -> None:
    """Five events delivered while the stream was busy come out as one batch (one write)."""
    await upgrade_async(sqlite_url)
    engine = create_engine(sqlite_url)
    sessions = session_factory(engine)
    bus = MemoryEventBus()
    task_id = await new_task(sessions, start_url=None)

    async def persist(seqs: range) -> list[Any]:
        async with sessions() as s:
            rows = [
                await repositories.append_event(
                    s, task_id=task_id, seq=seq, type="step.started", data={}
                )
                for seq in seqs
            ]
            await s.commit()
        return [repositories.event_to_contract(row) for row in rows]

    events = stream_events(task_id, 0, gate=ReplayGate(sessions, 1), bus=bus, poll_s=60)
    try:
        first = asyncio.ensure_future(anext(events))
        while bus.subscriber_count(task_id) == 0:
            await asyncio.sleep(0.01)
        bus.publish_threadsafe((await persist(range(1, 2)))[0])
        assert [e.seq for e in await asyncio.wait_for(first, 10)] == [1]  # now tailing live
        backlog = await persist(range(2, 7))
        for event in backlog:  # all five land before the stream runs again
            bus.publish_threadsafe(event)
        batch = await asyncio.wait_for(anext(events), 10)  # the DB re-poll is 60 s away
        assert [e.seq for e in batch] == [2, 3, 4, 5, 6]
    finally:
        await events.aclose()
        await engine.dispose()


async def test_idle_re_polls_share_a_recent_read_backfills_do_not(sqlite_url: str) -> None:
    """2,000 idle streams re-polled the DB 400 times a second; now an idle re-poll uses a
    read of the same page finished within max_age, while a gap backfill reads afresh."""
    await upgrade_async(sqlite_url)
    engine = create_engine(sqlite_url)
    sessions = session_factory(engine)
    gate = ReplayGate(sessions, 1)
    try:
        task_id = await new_task(sessions, start_url=None)
        assert await gate.page(task_id, 0, 500) == ([], False)
        for _ in range(20):  # idle re-polls of 20 streams
            assert await gate.page(task_id, 0, 500, max_age=60) == ([], False)
        assert gate.reads == 1
        async with sessions() as s:
            await repositories.append_event(s, task_id=task_id, seq=1, type="x", data={})
            await s.commit()
        events, _ = await gate.page(task_id, 0, 500)  # a backfill sees the new row
        assert [e.seq for e in events] == [1] and gate.reads == 2
    finally:
        await engine.dispose()
