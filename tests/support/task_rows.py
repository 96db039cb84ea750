"""A queued task row straight in the database, for tests that need one to hang data on."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from app.contracts import DEFAULT_TENANT
from app.db import repositories
from app.db.models import Task


async def add_task(
    s: AsyncSession,
    *,
    tenant_id: str = DEFAULT_TENANT,
    instruction: str = "find the answer",
    start_url: str | None = None,
    max_steps: int = 5,
    timeout_s: float = 60.0,
) -> Task:
    """Insert a queued task (no allowed_domains, no metadata) and commit; returns the row."""
    task, _ = await repositories.create_task(
        s,
        tenant_id=tenant_id,
        instruction=instruction,
        start_url=start_url,
        max_steps=max_steps,
        timeout_s=timeout_s,
        allowed_domains=[],
        metadata={},
    )
    await s.commit()
    return task
