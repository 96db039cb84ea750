"""create_app(): the HTTP service. Lifespan opens the DB engine, Redis, bus and dispatcher.

Production (redis_url set) builds rq + Redis Streams itself; the embedded deployment's
composition root injects an in-process dispatcher and the bus shared with its workers.
"""

from __future__ import annotations

import logging
import math
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, AsyncExitStack, asynccontextmanager

import redis.asyncio as aioredis
from fastapi import FastAPI
from fastapi.exceptions import RequestValidationError
from starlette.types import ASGIApp

from app import logredact
from app.api import approvals as approvals_api
from app.api import artifacts as artifacts_api
from app.api import domains as domains_api
from app.api import events as events_api
from app.api import guides as guides_api
from app.api import health, problems, profiles, results, task_delete, tasks, unavailable
from app.api import ledger as ledger_api
from app.api import live as live_api
from app.api import sites as sites_api
from app.api.access import OperatorPagesGuard
from app.api.deps import AUTH_RESPONSES
from app.api.inputs import validation_error_handler
from app.db.session import create_engine, is_sqlite, session_factory
from app.dispatch import JOB_TIMEOUT_GRACE_S, Dispatcher, RqDispatcher
from app.events import EventBus, MemoryEventBus, RedisEventBus
from app.http_metrics import HttpMetrics
from app.openapi import install as install_openapi
from app.openapi import operation_id
from app.ratelimit import RateLimiter
from app.settings import Settings, get_settings
from app.sse_lean import LeanSSE
from app.store import open_store
from app.urlpolicy import network_policy
from app.web import install as install_viewer
from app.webhooks import deliverer as webhook_deliverer

log = logging.getLogger(__name__)

LifespanExtra = Callable[[FastAPI], AbstractAsyncContextManager[None]]


class WebAgentApp(FastAPI):
    """FastAPI with the lean SSE path in front of its middleware stack (app/sse_lean.py)."""

    def build_middleware_stack(self) -> ASGIApp:
        return LeanSSE(super().build_middleware_stack())


class ConfigurationError(RuntimeError):
    """The service cannot start with this combination of settings and injected parts."""


async def _open_redis(settings: Settings, stack: AsyncExitStack) -> aioredis.Redis | None:
    if not settings.redis_url:
        return None
    client = aioredis.Redis.from_url(settings.redis_url)
    stack.push_async_callback(client.aclose)
    return client


def _pool_options(settings: Settings) -> dict[str, float]:
    """The API's Postgres pool from settings (SQLite keeps its own pooling)."""
    if is_sqlite(settings.effective_database_url):
        return {}
    return {
        "pool_size": settings.db_pool_size,
        "max_overflow": settings.db_max_overflow,
        "pool_timeout": settings.db_pool_timeout_s,
    }


def _build_bus(settings: Settings, stack: AsyncExitStack) -> EventBus:
    if settings.redis_url:
        bus = RedisEventBus(settings.redis_url, settings.event_stream_maxlen)
        stack.push_async_callback(bus.aclose)
        return bus
    return MemoryEventBus()


def _build_dispatcher(settings: Settings, stack: AsyncExitStack) -> Dispatcher:
    if not settings.redis_url:
        raise ConfigurationError(
            "embedded mode (no WEBAGENT_REDIS_URL) needs an injected dispatcher: start the "
            "service with `webagent serve`, or pass create_app(dispatcher=InProcessDispatcher(...))"
        )
    dispatcher = RqDispatcher(
        settings.redis_url,
        queue_name=settings.queue_name,
        # a takeover may stop a task's clock (workers/agent/clock.py): rq's limit leaves room
        grace_s=JOB_TIMEOUT_GRACE_S + math.ceil(settings.takeover_pause_max_s),
    )
    stack.callback(dispatcher.close)
    return dispatcher


def create_app(
    settings: Settings | None = None,
    *,
    dispatcher: Dispatcher | None = None,
    bus: EventBus | None = None,
    lifespan_extra: LifespanExtra | None = None,
) -> FastAPI:
    """The ASGI app. `lifespan_extra` runs inside the lifespan after storage is open and may
    set app.state.dispatcher / app.state.readiness_checks (e.g. the embedded runtime)."""
    cfg = settings or get_settings()
    logredact.install()  # no secret value or API key in this process's logs

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with AsyncExitStack() as stack:
            engine = create_engine(cfg.effective_database_url, **_pool_options(cfg))
            stack.push_async_callback(engine.dispose)
            app.state.engine = engine
            app.state.session_factory = session_factory(engine)
            app.state.redis = await _open_redis(cfg, stack)
            app.state.bus = bus if bus is not None else _build_bus(cfg, stack)
            app.state.dispatcher = dispatcher
            if lifespan_extra is not None:
                await stack.enter_async_context(lifespan_extra(app))
            if app.state.dispatcher is None:
                app.state.dispatcher = _build_dispatcher(cfg, stack)
            await stack.enter_async_context(webhook_deliverer(app.state.session_factory, cfg))
            log.info(
                "webagent API ready (%s, %s)",
                "embedded" if cfg.embedded else "redis",
                engine.dialect.name,
            )
            yield

    app = WebAgentApp(
        title="webagent",
        version="0.1.0",
        summary="Self-hosted web agent as a service",
        lifespan=lifespan,
        generate_unique_id_function=operation_id,  # submitTask, getTask, ... (app/openapi.py)
        docs_url=None,  # /docs and /redoc with self-hosted assets: app/web/docs.py
        redoc_url=None,
    )
    problems.install(app)  # every 4xx/5xx is RFC 9457 problem details (app/api/problems.py)
    app.add_exception_handler(RequestValidationError, validation_error_handler)
    unavailable.install(app)  # database outage: 503 problem with Retry-After, not a bare 500
    network_policy(cfg)  # a malformed ALLOWED_PRIVATE_HOSTS stops the start, not a request
    app.state.settings = cfg
    app.state.artifact_store = open_store(cfg)  # artifact bytes (app/store); rows keep metadata
    app.state.readiness_checks = {}
    app.state.limiter = RateLimiter(
        per_minute=cfg.rate_limit_per_minute, burst=cfg.rate_limit_burst
    )
    app.add_middleware(OperatorPagesGuard)
    app.add_middleware(HttpMetrics)  # requests and latency by route template (app/http_metrics.py)
    install_viewer(app)  # run viewer at / and offline docs; its cookie middleware wraps the guard
    app.include_router(tasks.router, responses=AUTH_RESPONSES)
    app.include_router(task_delete.router, responses=AUTH_RESPONSES)
    app.include_router(ledger_api.router, responses=AUTH_RESPONSES)
    app.include_router(domains_api.router, responses=AUTH_RESPONSES)
    app.include_router(guides_api.router, responses=AUTH_RESPONSES)
    app.include_router(sites_api.router, responses=AUTH_RESPONSES)
    app.include_router(events_api.router, responses=AUTH_RESPONSES)
    app.include_router(approvals_api.router, responses=AUTH_RESPONSES)
    app.include_router(live_api.router, responses=AUTH_RESPONSES)
    app.include_router(results.router, responses=AUTH_RESPONSES)
    app.include_router(profiles.router, responses=AUTH_RESPONSES)
    app.include_router(artifacts_api.router, responses=AUTH_RESPONSES)
    app.include_router(health.router)
    install_openapi(app)  # one error shape, descriptions, event schemas
    return app
