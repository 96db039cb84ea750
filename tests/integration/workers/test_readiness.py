"""/readyz of the API-only (Redis) deployment: 'browser' = a live rq worker on QUEUE_NAME."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
import redis
from fastapi import FastAPI
from rq import Queue, Worker, worker_registration

from app.api.health import live_rq_workers
from app.contracts import QUEUE_NAME
from app.settings import Settings
from tests.support.llm_server import MODEL, ScriptedLLMServer
from workers.process.embedded import build_app

pytestmark = pytest.mark.services


@contextlib.asynccontextmanager
async def running(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as client:
            yield client


async def readyz(client: httpx.AsyncClient) -> tuple[int, dict[str, Any]]:
    resp = await client.get("/readyz")
    return resp.status_code, resp.json()["checks"]


async def test_readyz_needs_a_live_rq_worker(
    migrated_pg_url: str, redis_url: str, llm_server: ScriptedLLMServer
) -> None:
    settings = Settings(
        database_url=migrated_pg_url,
        redis_url=redis_url,
        llm_base_url=llm_server.base_url,
        llm_model=MODEL,
    )
    connection = redis.Redis.from_url(redis_url)
    queue = Queue(QUEUE_NAME, connection=connection)
    # a real rq registration (what `webagent worker` does on start), without a work loop
    worker = Worker([queue], connection=connection, name="readiness-probe-worker")
    other = Worker([Queue("some-other-queue", connection=connection)], connection=connection)
    try:
        async with running(build_app(settings)) as client:
            other.register_birth()  # a worker on another queue does not make us ready
            status, checks = await readyz(client)
            assert status == 503
            assert checks["browser"]["ok"] is False
            assert checks["database"]["ok"] and checks["redis"]["ok"] and checks["llm"]["ok"]

            worker.register_birth()
            status, checks = await readyz(client)
            assert status == 200, checks
            assert checks["browser"]["ok"] is True

            worker.register_death()
            status, checks = await readyz(client)
            assert status == 503 and checks["browser"]["ok"] is False
    finally:
        for w in (worker, other):
            with contextlib.suppress(redis.RedisError):
                w.register_death()
        connection.close()


async def test_readyz_names_the_llm_setting_to_fix(migrated_pg_url: str, redis_url: str) -> None:
    dead = "http://127.0.0.1:1/v1"
    settings = Settings(database_url=migrated_pg_url, redis_url=redis_url, llm_base_url=dead)
    async with running(build_app(settings)) as client:
        status, checks = await readyz(client)
    assert status == 503 and checks["llm"]["ok"] is False
    assert f"LLM endpoint {dead} unreachable (WEBAGENT_LLM_BASE_URL)" in checks["llm"]["detail"]


def test_registration_without_a_live_key_is_not_counted(redis_url: str) -> None:
    """A SIGKILLed worker stays in rq's registry; its own key expiring marks it gone. (A queue
    of its own: a worker another test killed may still be in the real queue's registry.)"""
    connection = redis.Redis.from_url(redis_url)
    queue = Queue(f"{QUEUE_NAME}-{uuid.uuid4().hex[:8]}", connection=connection)
    alive = Worker([queue], connection=connection, name="readiness-alive")
    killed = Worker([queue], connection=connection, name="readiness-killed")
    try:
        assert live_rq_workers(queue) == 0
        alive.register_birth()
        killed.register_birth()
        assert Worker.count(queue=queue) == live_rq_workers(queue) == 2
        connection.delete(killed.key)  # what its TTL does when no heartbeat renews it
        assert Worker.count(queue=queue) == 2
        assert live_rq_workers(queue) == 1
    finally:
        for w in (alive, killed):
            with contextlib.suppress(redis.RedisError):
                w.register_death()
        connection.close()


def test_worker_registration_is_renewed_after_redis_lost_it(redis_url: str) -> None:
    """A Redis restart without persistence drops rq's registry; the next heartbeat renews it."""
    from workers.process.supervisor import RenewingWorker

    connection = redis.Redis.from_url(redis_url)
    queue = Queue(f"renew-{uuid.uuid4().hex[:8]}", connection=connection)
    worker = RenewingWorker([queue], connection=connection, name=f"renew-{uuid.uuid4().hex[:8]}")
    try:
        worker.register_birth()
        assert live_rq_workers(queue) == 1
        # what the restart loses: the worker's hash and the queue's worker set
        connection.delete(worker.key, worker_registration.WORKERS_BY_QUEUE_KEY % queue.name)
        connection.srem(worker_registration.REDIS_WORKER_KEYS, worker.key)
        assert live_rq_workers(queue) == 0
        worker.heartbeat()  # rq's idle work loop calls this every worker_ttl - 15 s
        assert live_rq_workers(queue) == 1
        assert not worker.renew_registration()  # registered again: nothing more to do
    finally:
        worker.register_death()
        connection.close()
