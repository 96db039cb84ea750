"""FastAPI dependencies: everything a route needs comes from app.state via these functions."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request, Response, status
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth import ALL_SCOPES, Principal, Scope, parse_scopes
from app.contracts import DEFAULT_TENANT
from app.db import repositories
from app.dispatch import Dispatcher
from app.events import EventBus
from app.ratelimit import RateLimiter
from app.settings import Settings
from app.store import ArtifactStore


def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


def get_session_factory(request: Request) -> Any:
    return request.app.state.session_factory


async def _session(request: Request) -> AsyncIterator[AsyncSession]:
    """One session per request, closed when the route function returns (before streaming)."""
    async with request.app.state.session_factory() as session:
        yield session


def get_bus(request: Request) -> EventBus:
    bus: EventBus = request.app.state.bus
    return bus


def get_artifact_store(request: Request) -> ArtifactStore:
    store: ArtifactStore = request.app.state.artifact_store
    return store


def get_dispatcher(request: Request) -> Dispatcher:
    dispatcher: Dispatcher = request.app.state.dispatcher
    return dispatcher


SettingsDep = Annotated[Settings, Depends(get_settings)]
SessionDep = Annotated[AsyncSession, Depends(_session, scope="function")]
BusDep = Annotated[EventBus, Depends(get_bus)]
DispatcherDep = Annotated[Dispatcher, Depends(get_dispatcher)]
SessionFactoryDep = Annotated[Any, Depends(get_session_factory)]
StoreDep = Annotated[ArtifactStore, Depends(get_artifact_store)]


def bearer_token(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def client_address(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"


def admit(request: Request, response: Response | None, caller: str) -> None:
    """Take one request from the caller's bucket: 429 with Retry-After when it is empty."""
    limiter: RateLimiter = request.app.state.limiter
    decision = limiter.take(caller)
    if not decision.allowed:
        raise HTTPException(
            status.HTTP_429_TOO_MANY_REQUESTS,
            detail=f"rate limit exceeded; retry in {decision.retry_after_s}s",
            headers={
                "Retry-After": str(decision.retry_after_s),
                "RateLimit-Limit": str(decision.limit),
                "RateLimit-Remaining": "0",
            },
        )
    if response is not None and limiter.enabled:
        response.headers["RateLimit-Limit"] = str(decision.limit)
        response.headers["RateLimit-Remaining"] = str(decision.remaining)


async def authenticate(request: Request, response: Response | None = None) -> Principal | None:
    """The key's principal, or None for a missing/unknown/revoked key. Keyed callers are
    rate-limited per key, failed attempts per client address."""
    token = bearer_token(request)
    key = None
    if token is not None:
        async with request.app.state.session_factory() as session:
            key = await repositories.find_api_key(session, plaintext=token)
    if key is None:
        admit(request, None, f"addr:{client_address(request)}")
        return None
    admit(request, response, f"key:{key.id}")
    return Principal(tenant_id=key.tenant_id, key_id=key.id, scopes=parse_scopes(key.scopes))


# documents `Authorization: Bearer <key>` in OpenAPI (securitySchemes); the check is below
BEARER = HTTPBearer(
    auto_error=False,
    scheme_name="bearerAuth",
    description="an API key (`webagent keys create`); required when WEBAGENT_API_KEYS_REQUIRED",
)


async def get_principal(
    request: Request,
    response: Response,
    settings: SettingsDep,
    _bearer_doc: Annotated[HTTPAuthorizationCredentials | None, Depends(BEARER)] = None,
) -> Principal:
    """Who is calling: the default tenant with every scope when keys are off, else the
    owner of a valid Bearer key (401 otherwise)."""
    if not settings.api_keys_required:
        return Principal(tenant_id=DEFAULT_TENANT, key_id=None, scopes=ALL_SCOPES)
    principal = await authenticate(request, response)
    if principal is None:
        raise HTTPException(
            status.HTTP_401_UNAUTHORIZED,
            detail="a valid API key is required (Authorization: Bearer <key>)",
            headers={"WWW-Authenticate": "Bearer"},
        )
    return principal


PrincipalDep = Annotated[Principal, Depends(get_principal)]


def require(scope: Scope) -> Callable[[Principal], Awaitable[str]]:
    """A dependency giving the caller's tenant when its key holds `scope` (403 otherwise)."""

    async def tenant(principal: PrincipalDep) -> str:
        if not principal.allows(scope):
            raise HTTPException(
                status.HTTP_403_FORBIDDEN, detail=f"this API key lacks the {scope.value} scope"
            )
        return principal.tenant_id

    return tenant


TenantDep = Annotated[str, Depends(require(Scope.tasks_read))]  # read a tenant's tasks
WriterDep = Annotated[str, Depends(require(Scope.tasks_write))]  # submit and cancel
LearningsDep = Annotated[str, Depends(require(Scope.learnings_read))]
AdminDep = Annotated[str, Depends(require(Scope.admin))]  # operator settings (guides)

AUTH_RESPONSES: dict[int | str, dict[str, Any]] = {
    401: {"description": "missing, unknown or revoked API key"},
    403: {"description": "the API key lacks the scope this route needs"},
    429: {"description": "rate limit or concurrent-task cap reached (see Retry-After)"},
}
