"""A run's Ledger trajectory rows (seed 000 §5.2): steps and episodic notes, append-only.

The snapshot itself is `save_ledger` / `get_ledger` (rewritten on each update); facts and
dead ends are in repo_memory (they outlive the task). Functions flush but never commit.
"""

from __future__ import annotations

from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.inserts import add_row
from app.db.models import EpisodicNote, LedgerStep

Trajectory = TypeVar("Trajectory", LedgerStep, EpisodicNote)  # rows read back the same way


async def add_ledger_step(
    s: AsyncSession, *, task_id: str, tenant_id: str, step: int, data: dict[str, Any]
) -> LedgerStep:
    return await add_row(s, LedgerStep, task_id=task_id, tenant_id=tenant_id, step=step, data=data)


async def list_ledger_steps(s: AsyncSession, *, task_id: str) -> list[LedgerStep]:
    """The run's steps in the order they were recorded."""
    return await _in_order(s, LedgerStep, task_id)


async def add_episodic_note(
    s: AsyncSession, *, task_id: str, tenant_id: str, text: str, step: int | None, kind: str
) -> EpisodicNote:
    return await add_row(
        s, EpisodicNote, task_id=task_id, tenant_id=tenant_id, step=step, kind=kind, text=text
    )


async def list_episodic_notes(s: AsyncSession, *, task_id: str) -> list[EpisodicNote]:
    """The run's notes in the order they were recorded."""
    return await _in_order(s, EpisodicNote, task_id)


async def _in_order(s: AsyncSession, model: type[Trajectory], task_id: str) -> list[Trajectory]:
    stmt = (
        select(model)
        .where(model.task_id == task_id)
        .order_by(model.created_at, model.step, model.id)
    )
    return list((await s.execute(stmt)).scalars())
