"""API keys: the plaintext is shown once; only its sha256 is stored."""

from __future__ import annotations

import hashlib
import secrets

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import ApiKey, new_id
from app.db.types import utcnow

KEY_PREFIX = "wak_"


def hash_api_key(plaintext: str) -> str:
    return hashlib.sha256(plaintext.encode()).hexdigest()


async def create_api_key(s: AsyncSession, *, tenant_id: str, name: str) -> tuple[ApiKey, str]:
    """→ (row, plaintext). The plaintext cannot be recovered later."""
    plaintext = KEY_PREFIX + secrets.token_urlsafe(32)
    key = ApiKey(
        id=new_id(),
        tenant_id=tenant_id,
        name=name,
        key_hash=hash_api_key(plaintext),
        prefix=plaintext[:8],
        created_at=utcnow(),
    )
    s.add(key)
    await s.flush()
    return key, plaintext


async def find_api_key(s: AsyncSession, *, plaintext: str) -> ApiKey | None:
    """The unrevoked key matching a presented secret, else None."""
    stmt = select(ApiKey).where(
        ApiKey.key_hash == hash_api_key(plaintext), ApiKey.revoked_at.is_(None)
    )
    return (await s.execute(stmt)).scalar_one_or_none()


async def list_api_keys(s: AsyncSession, *, tenant_id: str) -> list[ApiKey]:
    stmt = select(ApiKey).where(ApiKey.tenant_id == tenant_id).order_by(ApiKey.created_at)
    return list((await s.execute(stmt)).scalars())


async def revoke_api_key(s: AsyncSession, *, key_id: str, tenant_id: str) -> bool:
    """Revoke once; False if unknown, another tenant's, or already revoked."""
    stmt = (
        update(ApiKey)
        .where(ApiKey.id == key_id, ApiKey.tenant_id == tenant_id, ApiKey.revoked_at.is_(None))
        .values(revoked_at=utcnow())
        .returning(ApiKey.id)
        .execution_options(synchronize_session=False)
    )
    return (await s.execute(stmt)).scalar_one_or_none() is not None
