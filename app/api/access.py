"""Who may read the operator pages when API keys are required: /metrics and the API docs.

Settings `metrics_access` and `docs_access`: open, loopback (clients on the loopback
interface, or a key) or key. /metrics needs an admin key; the docs any valid key.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable

from fastapi import Request, Response
from fastapi.responses import JSONResponse
from starlette.middleware.base import BaseHTTPMiddleware

from app.api.deps import authenticate, client_address
from app.auth import Scope
from app.settings import Settings

DOCS_PATHS = frozenset({"/docs", "/docs/oauth2-redirect", "/redoc", "/openapi.json"})
METRICS_PATH = "/metrics"


def _loopback(request: Request) -> bool:
    try:
        return ipaddress.ip_address(client_address(request)).is_loopback
    except ValueError:
        return False


async def _allowed(request: Request, rule: str, scope: Scope | None) -> bool:
    if rule == "open" or (rule == "loopback" and _loopback(request)):
        return True
    principal = await authenticate(request)
    return principal is not None and (scope is None or principal.allows(scope))


class OperatorPagesGuard(BaseHTTPMiddleware):
    """401 for /metrics and the docs unless the access setting admits the caller."""

    async def dispatch(
        self, request: Request, call_next: Callable[[Request], Awaitable[Response]]
    ) -> Response:
        settings: Settings = request.app.state.settings
        path = request.url.path
        if settings.api_keys_required and (path == METRICS_PATH or path in DOCS_PATHS):
            rule, scope = (
                (settings.metrics_access, Scope.admin)
                if path == METRICS_PATH
                else (settings.docs_access, None)
            )
            if not await _allowed(request, rule, scope):
                return JSONResponse(
                    {"detail": f"{path} needs an API key ({rule} access)"},
                    status_code=401,
                    headers={"WWW-Authenticate": "Bearer"},
                )
        return await call_next(request)
