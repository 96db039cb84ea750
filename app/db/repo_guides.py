"""Operator guides (`guides`): keyword-only query functions, tenant-scoped."""

from __future__ import annotations

from sqlalchemy import delete, or_, select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Guide


def _norm(domain: str | None) -> str | None:
    return domain.strip().lower().rstrip(".") or None if domain else None


async def add_guide(
    s: AsyncSession, *, tenant_id: str, domain: str | None, title: str, body: str
) -> Guide:
    guide = Guide(tenant_id=tenant_id, domain=_norm(domain), title=title, body=body)
    s.add(guide)
    await s.flush()
    return guide


async def list_guides(
    s: AsyncSession, *, tenant_id: str, domain: str | None = None, with_global: bool = False
) -> list[Guide]:
    """The tenant's guides, oldest first; `domain`: that site's (and, `with_global`, the
    guides for every site too)."""
    stmt = select(Guide).where(Guide.tenant_id == tenant_id)
    if domain is not None:
        wanted = Guide.domain == _norm(domain)
        stmt = stmt.where(or_(wanted, Guide.domain.is_(None)) if with_global else wanted)
    return list((await s.scalars(stmt.order_by(Guide.created_at, Guide.id))).all())


async def get_guide(s: AsyncSession, *, tenant_id: str, guide_id: str) -> Guide | None:
    guide = await s.get(Guide, guide_id)
    return guide if guide is not None and guide.tenant_id == tenant_id else None


async def delete_guide(s: AsyncSession, *, tenant_id: str, guide_id: str) -> bool:
    result = await s.execute(
        delete(Guide).where(Guide.id == guide_id, Guide.tenant_id == tenant_id)
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]
