"""A run's Ledger trajectory rows (seed 000 §5.2): steps and episodic notes, append-only.

The snapshot itself is `save_ledger` / `get_ledger` (rewritten on each update); facts and
dead ends are in repo_memory (they outlive the task). Functions flush but never commit.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import EpisodicNote, LedgerStep, new_id
from app.db.types import utcnow


async def add_ledger_step(
    s: AsyncSession, *, task_id: str, tenant_id: str, step: int, data: dict[str, Any]
) -> LedgerStep:
    row = LedgerStep(
        id=new_id(), task_id=task_id, tenant_id=tenant_id, step=step, data=data, created_at=utcnow()
    )
    s.add(row)
    await s.flush()
    return row


async def list_ledger_steps(s: AsyncSession, *, task_id: str) -> list[LedgerStep]:
    """The run's steps in the order they were recorded."""
    stmt = (
        select(LedgerStep)
        .where(LedgerStep.task_id == task_id)
        .order_by(LedgerStep.created_at, LedgerStep.step, LedgerStep.id)
    )
    return list((await s.execute(stmt)).scalars())


async def add_episodic_note(
    s: AsyncSession, *, task_id: str, tenant_id: str, text: str, step: int | None, kind: str
) -> EpisodicNote:
    row = EpisodicNote(
        id=new_id(),
        task_id=task_id,
        tenant_id=tenant_id,
        step=step,
        kind=kind,
        text=text,
        created_at=utcnow(),
    )
    s.add(row)
    await s.flush()
    return row


async def list_episodic_notes(s: AsyncSession, *, task_id: str) -> list[EpisodicNote]:
    stmt = (
        select(EpisodicNote)
        .where(EpisodicNote.task_id == task_id)
        .order_by(EpisodicNote.created_at, EpisodicNote.step, EpisodicNote.id)
    )
    return list((await s.execute(stmt)).scalars())
