"""API keys: the plaintext is shown once; only its sha256 and a public prefix are stored."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from sqlalchemy import func, or_, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.auth import Scope, new_key, public_prefix, well_formed
from app.db.models import ApiKey, Task, new_id
from app.db.types import utcnow

ACTIVE_STATUSES = ("queued", "running", "awaiting_approval")


def hash_api_key(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode()).hexdigest()


async def create_api_key(
    s: AsyncSession,
    *,
    tenant_id: str,
    name: str,
    scopes: Iterable[Scope] = (Scope.tasks_write, Scope.tasks_read, Scope.learnings_read),
) -> tuple[ApiKey, str]:
    """→ (row, plaintext). The plaintext cannot be recovered later."""
    plaintext = new_key()
    key = ApiKey(
        id=new_id(),
        tenant_id=tenant_id,
        name=name,
        key_hash=hash_api_key(plaintext),
        prefix=public_prefix(plaintext),
        scopes=" ".join(sorted(Scope(s).value for s in scopes)),
        created_at=utcnow(),
    )
    s.add(key)
    await s.flush()
    return key, plaintext


async def find_api_key(s: AsyncSession, *, plaintext: str) -> ApiKey | None:
    """The unrevoked key matching a presented secret, else None (malformed: no query)."""
    if not well_formed(plaintext):
        return None
    stmt = select(ApiKey).where(
        ApiKey.key_hash == hash_api_key(plaintext), ApiKey.revoked_at.is_(None)
    )
    return (await s.execute(stmt)).scalar_one_or_none()


async def list_api_keys(s: AsyncSession, *, tenant_id: str | None) -> list[ApiKey]:
    """A tenant's keys (None: every tenant's, for the operator's CLI), oldest first."""
    stmt = select(ApiKey).order_by(ApiKey.created_at)
    if tenant_id is not None:
        stmt = stmt.where(ApiKey.tenant_id == tenant_id)
    return list((await s.execute(stmt)).scalars())


async def revoke_api_key(s: AsyncSession, *, key_id: str, tenant_id: str | None) -> bool:
    """Revoke by id or public prefix, once; False if unknown, another tenant's (when a
    tenant is given), or already revoked."""
    stmt = (
        update(ApiKey)
        .where(or_(ApiKey.id == key_id, ApiKey.prefix == key_id), ApiKey.revoked_at.is_(None))
        .values(revoked_at=utcnow())
        .returning(ApiKey.id)
        .execution_options(synchronize_session=False)
    )
    if tenant_id is not None:
        stmt = stmt.where(ApiKey.tenant_id == tenant_id)
    return (await s.execute(stmt)).first() is not None


async def count_active_tasks(s: AsyncSession, *, tenant_id: str) -> int:
    """Queued or running tasks of a tenant: what the concurrent-task cap counts."""
    stmt = select(func.count()).where(Task.tenant_id == tenant_id, Task.status.in_(ACTIVE_STATUSES))
    return int((await s.execute(stmt)).scalar_one())
