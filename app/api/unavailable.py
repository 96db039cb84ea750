"""A database outage answers 503 JSON naming the database, with Retry-After (issue 13, §6).

Without these handlers a refused Postgres connection (asyncpg raises ConnectionRefusedError,
SQLAlchemy wraps a dropped one in DBAPIError) surfaced as a bare `500 Internal Server Error`.
Redis errors keep their own 503 answers where they are caught.
"""

from __future__ import annotations

import logging

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

from app.api.problems import problem_response

log = logging.getLogger(__name__)

RETRY_AFTER_S = 5


class DependencyUnavailable(Exception):
    """A dependency other than the database is down (`what`: "queue", "redis", ...)."""

    def __init__(self, what: str, detail: str) -> None:
        super().__init__(detail)
        self.what = what
        self.detail = detail


def unavailable_response(what: str, detail: str, instance: str) -> JSONResponse:
    """The 503 problem: what is down, in words, and when to retry."""
    return problem_response(
        503,
        detail,
        instance=instance,
        headers={"Retry-After": str(RETRY_AFTER_S)},
        unavailable=what,
    )


async def dependency_unavailable(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, DependencyUnavailable)
    log.warning("%s unavailable on %s %s: %s", exc.what, request.method, request.url.path, exc)
    return unavailable_response(exc.what, exc.detail, request.url.path)


def _is_outage(exc: Exception) -> bool:
    if isinstance(exc, OSError | PoolTimeoutError | OperationalError | InterfaceError):
        return True
    return isinstance(exc, DBAPIError) and exc.connection_invalidated


async def database_unavailable(request: Request, exc: Exception) -> JSONResponse:
    if not _is_outage(exc):
        raise exc  # any other database error is a real 500
    log.warning("database unavailable on %s %s: %r", request.method, request.url.path, exc)
    return unavailable_response("database", "database unavailable, retry later", request.url.path)


def install(app: FastAPI) -> None:
    """Register the handlers (OSError covers asyncpg's refused or reset connections)."""
    for exc_type in (OSError, PoolTimeoutError, DBAPIError):
        app.add_exception_handler(exc_type, database_unavailable)
    app.add_exception_handler(DependencyUnavailable, dependency_unavailable)
