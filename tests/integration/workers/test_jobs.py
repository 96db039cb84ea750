"""run_task end to end: real Chromium, real DB, the openai client against the scripted server.

Embedded path (EmbeddedWorkers + memory bus) on SQLite and Postgres, and the production path
(rq SimpleWorker in this process + Redis Streams + Postgres).
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis
from rq import Queue, SimpleWorker
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.contracts import QUEUE_NAME, ErrorCode, Event, TaskStatus, stream_key
from app.db import repositories
from app.dispatch import RqDispatcher
from app.events import MemoryEventBus, RedisEventBus
from app.settings import Settings
from app.store.records import read_artifact
from tests.integration.workers.conftest import new_task
from tests.support.llm_server import Reply, ScriptedLLMServer, text_reply, tool_reply
from tests.support.policies import always, latest_observation
from tests.support.sites import TestSite
from workers import jobs
from workers.process import runtime
from workers.process.embedded import EmbeddedWorkers
from workers.process.runtime import WorkerRuntime

pytestmark = [pytest.mark.browser, pytest.mark.services]

Sessions = async_sessionmaker[AsyncSession]


def read_home_policy(request: dict[str, Any]) -> Reply:
    """Answer from the observed start page, so the run proves the page reached the model."""
    if "Outdoor shop" in latest_observation(request):
        return tool_reply(("done", {"answer": "the site has an Outdoor shop", "success": True}))
    return text_reply("I cannot see the start page.")


def worker_settings(chromium_path: str, db_url: str, llm: ScriptedLLMServer, **kw: Any) -> Settings:
    """Settings of a job test's worker. Plain input unless asked (`humanize=True`): these tests
    check the loop, the store and the events, not the hand; the hand's timing has its own tests
    (tests/unit/browser/test_humanize.py, the click gallery) and here only cost wall time (a
    12-step run of the route shop: 45 s humanized, 16 s plain on one loaded machine)."""
    kw.setdefault("humanize", False)
    return Settings(
        chromium_path=chromium_path,
        database_url=db_url,
        llm_base_url=llm.base_url,
        llm_max_retries=0,
        allow_private_networks=True,
        heartbeat_interval_s=0.2,
        **kw,
    )


@pytest.fixture
async def embedded(
    chromium_path: str, db_url: str, llm_server: ScriptedLLMServer
) -> AsyncIterator[tuple[EmbeddedWorkers, MemoryEventBus]]:
    bus = MemoryEventBus()
    workers = EmbeddedWorkers(worker_settings(chromium_path, db_url, llm_server), bus, 1)
    await asyncio.to_thread(workers.start)
    try:
        yield workers, bus
    finally:
        await asyncio.to_thread(workers.stop)


async def wait_terminal(sessions: Sessions, task_id: str, timeout: float = 90) -> Any:
    async with asyncio.timeout(timeout):
        while True:
            async with sessions() as s:
                task = await repositories.get_task(s, task_id=task_id)
            if task is not None and TaskStatus(task.status).terminal:
                return task
            await asyncio.sleep(0.1)


async def stored_events(sessions: Sessions, task_id: str) -> list[Any]:
    async with sessions() as s:
        return await repositories.list_events(s, task_id=task_id)


async def test_embedded_run_succeeds_and_streams(
    embedded: tuple[EmbeddedWorkers, MemoryEventBus],
    sessions: Sessions,
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
) -> None:
    workers, bus = embedded
    llm_server.set_policy(read_home_policy)
    task_id = await new_task(sessions, start_url=test_site.url("/"), max_steps=3)
    live: list[Event] = []
    async with bus.subscribe(task_id) as sub:
        workers.submit(task_id)
        while not live or live[-1].type != "task.finished":
            event = await sub.next(timeout=90)
            assert event is not None, "no live event within 90s"
            live.append(event)
    task = await wait_terminal(sessions, task_id)

    assert task.status == TaskStatus.succeeded, task.error_detail
    assert task.answer == "the site has an Outdoor shop"
    assert task.worker_id == workers.runtime.worker_id
    assert task.input_tokens > 0 and task.steps == 1
    rows = await stored_events(sessions, task_id)
    # The Worker's done is a completion signal; the Planner verifies it (seed 001 A.4).
    roles = [r.data["role"] for r in rows if r.type == "llm.call"]
    assert roles == ["worker", "planner"] and task.llm_calls == len(roles)
    assert [r.seq for r in rows] == list(range(1, len(rows) + 1))
    assert [(e.seq, e.type) for e in live] == [(r.seq, r.type) for r in rows]
    assert rows[0].type == "task.started" and rows[-1].type == "task.finished"
    finished = rows[-1].data
    assert finished["status"] == "succeeded" and finished["answer"] == task.answer
    assert finished["usage"]["llm_calls"] == task.llm_calls
    async with sessions() as s:
        shot = await repositories.get_artifact(s, task_id=task_id, kind="screenshot", step=1)
        assert shot is not None
        data = await read_artifact(s, workers.runtime.store, shot)
    assert data.startswith(b"\xff\xd8") and shot.size == len(data)


async def test_timeout_marks_timed_out(
    embedded: tuple[EmbeddedWorkers, MemoryEventBus],
    sessions: Sessions,
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
) -> None:
    workers, _ = embedded
    llm_server.set_policy(always(Reply(content="thinking", delay_s=20)))
    task_id = await new_task(sessions, start_url=test_site.url("/"), timeout_s=1.0)
    workers.submit(task_id)
    task = await wait_terminal(sessions, task_id, timeout=60)
    assert task.status == TaskStatus.timed_out
    assert task.error == ErrorCode.timeout
    rows = await stored_events(sessions, task_id)
    assert rows[-1].type == "task.finished" and rows[-1].data["status"] == "timed_out"


async def test_cancelled_before_start_never_runs(
    embedded: tuple[EmbeddedWorkers, MemoryEventBus],
    sessions: Sessions,
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
) -> None:
    assert embedded[0].ready  # runtime installed: run_task can be called directly
    task_id = await new_task(sessions, start_url=test_site.url("/"))
    async with sessions() as s:
        await repositories.request_cancel(s, task_id=task_id, tenant_id="default")
        await s.commit()
    await asyncio.to_thread(jobs.run_task, task_id)  # returns at once: nothing to claim
    task = await wait_terminal(sessions, task_id, timeout=10)
    assert task.status == TaskStatus.cancelled
    assert await stored_events(sessions, task_id) == []
    assert llm_server.requests == []


async def test_llm_failure_is_a_failed_task(
    embedded: tuple[EmbeddedWorkers, MemoryEventBus],
    sessions: Sessions,
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
) -> None:
    workers, _ = embedded
    llm_server.set_policy(always(Reply(status=500, raw_body='{"error": {"message": "boom"}}')))
    task_id = await new_task(sessions, start_url=test_site.url("/"))
    workers.submit(task_id)
    task = await wait_terminal(sessions, task_id)
    assert task.status == TaskStatus.failed
    assert task.error == ErrorCode.llm_error
    rows = await stored_events(sessions, task_id)
    assert rows[-1].data["error"] == "llm_error"


def test_rq_simple_worker_runs_the_job(
    chromium_path: str,
    migrated_pg_url: str,
    redis_url: str,
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
) -> None:
    """Production path: RqDispatcher enqueues, SimpleWorker runs run_task in this process.

    Sync test: rq installs signal handlers, which only the main thread may do.
    """
    llm_server.set_policy(read_home_policy)
    task_id = asyncio.run(_with_sessions(migrated_pg_url, _create_home_task, test_site))
    # a private queue: parallel test sessions may share this Redis database
    queue_name = f"{QUEUE_NAME}-test-{uuid.uuid4().hex[:8]}"
    dispatcher = RqDispatcher(redis_url, queue_name=queue_name)
    dispatcher.enqueue_sync(task_id, timeout_s=60)

    settings = worker_settings(chromium_path, migrated_pg_url, llm_server, redis_url=redis_url)
    rt = WorkerRuntime(settings, RedisEventBus(redis_url))
    rt.start()
    runtime.install(rt)
    conn = redis.Redis.from_url(redis_url)
    try:
        worker = SimpleWorker([Queue(queue_name, connection=conn)], connection=conn)
        assert worker.work(burst=True, with_scheduler=False)
    finally:
        runtime.install(None)
        rt.stop()

    task, rows = asyncio.run(_with_sessions(migrated_pg_url, _task_and_events, task_id))
    assert task.status == TaskStatus.succeeded, task.error_detail
    assert task.worker_id == rt.worker_id
    entries: Any = conn.xrange(stream_key(task_id))
    streamed = [json.loads(fields[b"event"]) for _, fields in entries]
    assert [(e["seq"], e["type"]) for e in streamed] == [(r.seq, r.type) for r in rows]
    assert rows[-1].type == "task.finished"
    assert len(dispatcher.queue) == 0
    conn.close()
    dispatcher.close()


async def _with_sessions(url: str, fn: Any, *args: Any) -> Any:
    from app.db import create_engine, session_factory

    engine = create_engine(url)
    try:
        return await fn(session_factory(engine), *args)
    finally:
        await engine.dispose()


async def _create_home_task(sessions: Sessions, site: TestSite) -> str:
    return await new_task(sessions, start_url=site.url("/"), max_steps=3)


async def _task_and_events(sessions: Sessions, task_id: str) -> tuple[Any, list[Any]]:
    async with sessions() as s:
        task = await repositories.get_task(s, task_id=task_id)
    return task, await stored_events(sessions, task_id)
