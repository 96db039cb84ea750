"""How the run viewer authenticates: the API key in an HttpOnly cookie, or the usual header.

With `WEBAGENT_API_KEYS_REQUIRED` on, a person signs in once on `/login` with an API key;
the key is kept in a cookie the page's JavaScript cannot read (HttpOnly, SameSite=Strict,
Secure over HTTPS). `CookieCredentials` turns that cookie into the `Authorization: Bearer`
header the API already checks, so the viewer's pages, its SSE stream, screenshots, cancel
and approvals go through exactly the API's tenant scoping and scopes - no second auth path.

Cross-site request forgery: the cookie is SameSite=Strict (never sent from another site),
and for state-changing methods the cookie is used only when the request also carries the
custom header `X-Webagent-Viewer` (a cross-origin page cannot add it without a CORS
preflight, which this service never grants) and is not marked `Sec-Fetch-Site: cross-site`.
Tests: tests/integration/ui/test_viewer_auth.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import quote

from fastapi import Request
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.deps import authenticate
from app.auth import ALL_SCOPES, Principal, well_formed
from app.contracts import DEFAULT_TENANT
from app.settings import Settings

COOKIE = "webagent_key"
VIEWER_HEADER = "x-webagent-viewer"
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
COOKIE_MAX_AGE_S = 8 * 3600

Headers = Sequence[tuple[bytes, bytes]]


def _header(headers: Headers, name: bytes) -> bytes | None:
    for key, value in headers:
        if key.lower() == name:
            return value
    return None


def cookie_key(headers: Headers) -> str | None:
    """The well-formed API key in the viewer cookie, if any."""
    raw = _header(headers, b"cookie")
    if raw is None:
        return None
    key = cookie_parser(raw.decode("latin-1")).get(COOKIE, "")
    return key if key and well_formed(key) else None


def cookie_applies(method: str, headers: Headers) -> bool:
    """May the cookie stand in for the Authorization header on this request?"""
    if _header(headers, b"authorization") is not None:
        return False  # an explicit header always wins
    if _header(headers, b"sec-fetch-site") == b"cross-site":
        return False
    return method in SAFE_METHODS or _header(headers, VIEWER_HEADER.encode()) is not None


class CookieCredentials:
    """Pure ASGI middleware: the viewer cookie becomes `Authorization: Bearer <key>`."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers: Headers = scope.get("headers", [])
            key = cookie_key(headers)
            if key is not None and cookie_applies(scope.get("method", "GET"), headers):
                bearer = (b"authorization", b"Bearer " + key.encode("ascii"))
                scope = {**scope, "headers": [*headers, bearer]}
        await self.app(scope, receive, send)


async def viewer_principal(request: Request) -> Principal | None:
    """The caller as the API sees it: everyone is the default tenant when keys are off."""
    settings: Settings = request.app.state.settings
    if not settings.api_keys_required:
        return Principal(tenant_id=DEFAULT_TENANT, key_id=None, scopes=ALL_SCOPES)
    return await authenticate(request)


async def principal_for_key(request: Request, key: str) -> Principal | None:
    """Check a key typed into the login form the way the API checks a header (same
    lookup, same rate limit for failed attempts)."""
    headers = [(k, v) for k, v in request.scope.get("headers", []) if k.lower() != b"authorization"]
    headers.append((b"authorization", b"Bearer " + key.encode("utf-8", "replace")))
    probe = Request({**request.scope, "headers": headers})
    return await authenticate(probe)


def safe_next(target: str | None) -> str:
    """Only a local path may follow a login (no open redirect to another site)."""
    if not target or not target.startswith("/") or target.startswith("//") or "\\" in target:
        return "/"
    if any(ch.isspace() or not ch.isprintable() for ch in target):
        return "/"  # browsers drop tabs and newlines: "/\t/evil.example" would become "//..."
    return target


def login_url(request: Request) -> str:
    here = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return f"/login?next={quote(here, safe='')}"
