"""Browser profiles: named, tenant-scoped storage states (cookies, localStorage).

The state is stored as one Fernet token (app/secrets.py key); these functions never see it
in clear. Functions flush but never commit: the caller owns the transaction.
"""

from __future__ import annotations

from sqlalchemy import delete, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import BrowserProfile
from app.db.types import utcnow


async def create_profile(s: AsyncSession, *, tenant_id: str, name: str) -> BrowserProfile | None:
    """A new empty profile; None when the tenant already has one of that name."""
    if await get_profile(s, tenant_id=tenant_id, name=name) is not None:
        return None
    row = BrowserProfile(tenant_id=tenant_id, name=name)
    s.add(row)
    await s.flush()
    return row


async def get_profile(s: AsyncSession, *, tenant_id: str, name: str) -> BrowserProfile | None:
    stmt = (
        select(BrowserProfile)
        .where(BrowserProfile.tenant_id == tenant_id, BrowserProfile.name == name)
        .execution_options(populate_existing=True)
    )
    return (await s.execute(stmt)).scalar_one_or_none()


async def list_profiles(s: AsyncSession, *, tenant_id: str) -> list[BrowserProfile]:
    stmt = (
        select(BrowserProfile)
        .where(BrowserProfile.tenant_id == tenant_id)
        .order_by(BrowserProfile.name)
    )
    return list((await s.execute(stmt)).scalars())


async def delete_profile(s: AsyncSession, *, tenant_id: str, name: str) -> bool:
    stmt = delete(BrowserProfile).where(
        BrowserProfile.tenant_id == tenant_id, BrowserProfile.name == name
    )
    result = await s.execute(stmt)
    return bool(getattr(result, "rowcount", 0))


async def save_storage(s: AsyncSession, *, tenant_id: str, name: str, sealed: str) -> bool:
    """Replace the profile's sealed storage state; False when the profile is gone."""
    row = await get_profile(s, tenant_id=tenant_id, name=name)
    if row is None:
        return False
    now = utcnow()
    row.storage_sealed, row.saved_at, row.updated_at = sealed, now, now
    await s.flush()
    return True
