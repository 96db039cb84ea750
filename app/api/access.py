"""Who may read the operator pages when API keys are required: /metrics and the API docs.

Settings `metrics_access` and `docs_access`: open, loopback (clients on the loopback
interface, or a key) or key. /metrics needs an admin key; the docs any valid key.
"""

from __future__ import annotations

import ipaddress

from fastapi import Request
from starlette.types import ASGIApp, Receive, Send
from starlette.types import Scope as Scope_

from app.api.deps import authenticate, client_address
from app.api.problems import problem_response
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


class OperatorPagesGuard:
    """Pure ASGI middleware (streams pass untouched): 401 for /metrics and the docs unless
    the access setting admits the caller."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope_, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if path == METRICS_PATH or path in DOCS_PATHS:
            request = Request(scope)
            settings: Settings = request.app.state.settings
            rule, needed = (
                (settings.metrics_access, Scope.admin)
                if path == METRICS_PATH
                else (settings.docs_access, None)
            )
            if settings.api_keys_required and not await _allowed(request, rule, needed):
                response = problem_response(
                    401,
                    f"{path} needs an API key ({rule} access)",
                    instance=path,
                    headers={"WWW-Authenticate": "Bearer"},
                )
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
