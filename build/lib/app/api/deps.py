"""FastAPI dependencies: everything a route needs comes from app.state via these functions."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Request, status
from sqlalchemy.ext.asyncio import AsyncSession

from app.contracts import DEFAULT_TENANT
from app.db import repositories
from app.dispatch import Dispatcher
from app.events import EventBus
from app.settings import Settings


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


def get_dispatcher(request: Request) -> Dispatcher:
    dispatcher: Dispatcher = request.app.state.dispatcher
    return dispatcher


SettingsDep = Annotated[Settings, Depends(get_settings)]
SessionDep = Annotated[AsyncSession, Depends(_session, scope="function")]
BusDep = Annotated[EventBus, Depends(get_bus)]
DispatcherDep = Annotated[Dispatcher, Depends(get_dispatcher)]
SessionFactoryDep = Annotated[Any, Depends(get_session_factory)]


def _bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


async def get_tenant(request: Request, settings: SettingsDep) -> str:
    """The caller's tenant: the default tenant, or the owner of a valid Bearer API key."""
    if not settings.api_keys_required:
        return DEFAULT_TENANT
    token = _bearer(request)
    unauthorized = HTTPException(
        status.HTTP_401_UNAUTHORIZED,
        detail="a valid API key is required (Authorization: Bearer <key>)",
        headers={"WWW-Authenticate": "Bearer"},
    )
    if token is None:
        raise unauthorized
    async with request.app.state.session_factory() as session:
        key = await repositories.find_api_key(session, plaintext=token)
    if key is None:
        raise unauthorized
    tenant: str = key.tenant_id
    return tenant


TenantDep = Annotated[str, Depends(get_tenant)]
