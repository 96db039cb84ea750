"""Liveness, readiness and the Prometheus scrape endpoint."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from fastapi import APIRouter, Request, Response
from fastapi.responses import JSONResponse
from redis.exceptions import RedisError
from rq import Queue, worker_registration
from sqlalchemy import text

from app import metrics
from app.api.schemas import CheckOut, Readiness

log = logging.getLogger(__name__)
router = APIRouter(tags=["health"])

READINESS_TIMEOUT_S = 3.0
ReadinessCheck = Callable[[], Awaitable[bool]]


def live_rq_workers(queue: Queue) -> int:
    """rq workers registered on `queue` (rq's Worker.count) whose own key is still alive:
    a killed worker stays registered until rq's maintenance runs, its key expires sooner."""
    keys = sorted(worker_registration.get_keys(queue=queue))
    return int(queue.connection.exists(*keys)) if keys else 0


def rq_workers_check(queue: Queue) -> ReadinessCheck:
    """Production 'browser' readiness: some live worker (warm Chromium) consumes the queue."""

    async def browser() -> bool:
        return await asyncio.to_thread(live_rq_workers, queue) > 0

    return browser


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    """The process serves requests; says nothing about its dependencies."""
    return {"status": "ok"}


async def _run_check(name: str, check: ReadinessCheck) -> CheckOut:
    try:
        ok = await asyncio.wait_for(check(), READINESS_TIMEOUT_S)
    except TimeoutError:
        return CheckOut(ok=False, detail=f"timed out after {READINESS_TIMEOUT_S}s")
    except Exception as exc:  # noqa: BLE001 - a probe reports any failure, never raises
        log.warning("readiness check %s failed: %r", name, exc)
        return CheckOut(ok=False, detail=f"{type(exc).__name__}: {exc}")
    return CheckOut(ok=bool(ok), detail=None if ok else "check returned false")


def _checks(request: Request) -> dict[str, ReadinessCheck]:
    """Built-in DB/Redis checks plus any the composition root registered (e.g. 'browser')."""
    state = request.app.state

    async def database() -> bool:
        async with state.session_factory() as session:
            await session.execute(text("SELECT 1"))
        return True

    checks: dict[str, ReadinessCheck] = {"database": database}
    if state.redis is not None:

        async def redis() -> bool:
            return bool(await state.redis.ping())

        checks["redis"] = redis
    checks.update(getattr(state, "readiness_checks", {}))
    return checks


@router.get("/readyz", response_model=Readiness, responses={503: {"model": Readiness}})
async def readyz(request: Request) -> JSONResponse:
    """200 when every dependency answers; 503 with per-check detail otherwise."""
    checks = _checks(request)
    results = await asyncio.gather(*(_run_check(n, c) for n, c in checks.items()))
    detail = dict(zip(checks, results, strict=True))
    ready = all(r.ok for r in results)
    body = Readiness(status="ready" if ready else "unavailable", checks=detail)
    return JSONResponse(body.model_dump(), status_code=200 if ready else 503)


@router.get("/metrics", response_class=Response)
async def metrics_endpoint(request: Request) -> Response:
    """Prometheus text; the queue depth is read from the dispatcher at scrape time."""
    dispatcher = request.app.state.dispatcher
    try:
        depth = await asyncio.wait_for(dispatcher.queue_depth(), READINESS_TIMEOUT_S)
    except (RedisError, OSError, RuntimeError, TimeoutError) as exc:  # serve the other series
        log.warning("queue depth unavailable: %r", exc)
    else:
        metrics.set_queue_depth(depth)
    body, content_type = metrics.render_latest()
    return Response(content=body, media_type=content_type)
