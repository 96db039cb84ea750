"""GET /v1/tasks/{id}/ledger: a run's Ledger (seed 000 §5.2) as persisted.

The latest snapshot plus the append-only rows it was built from: every step outcome in
order, the facts and dead ends the run recorded, and its episodic notes (subgoal summaries,
archival markers, failure reflections). The rows alone are enough to rebuild a finished
run's trajectory after the live context evicted it. Tenant-isolated like every task route:
another tenant's task is a 404.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypeVar

from fastapi import APIRouter
from pydantic import BaseModel, Field

from app.api.deps import SessionDep, TenantDep
from app.api.inputs import TaskIdPath
from app.api.tasks import load_task
from app.db import repositories

router = APIRouter(prefix="/v1/tasks", tags=["tasks"])


class LedgerStepOut(BaseModel):
    step: int
    data: dict[str, Any]
    recorded_at: datetime


class LedgerFactOut(BaseModel):
    key: str | None
    value: str
    category: str
    confidence: float
    source_step: int | None
    domain: str | None
    recorded_at: datetime


class LedgerDeadEndOut(BaseModel):
    description: str | None
    url: str
    cause: str
    step: int | None
    domain: str | None
    recorded_at: datetime


class EpisodicNoteOut(BaseModel):
    step: int | None
    kind: str
    text: str
    recorded_at: datetime


class LedgerOut(BaseModel):
    task_id: str
    status: str
    snapshot: dict[str, Any] | None = Field(description="the latest Ledger.to_dict(), if any")
    updated_at: datetime | None
    steps: list[LedgerStepOut]
    facts: list[LedgerFactOut]
    dead_ends: list[LedgerDeadEndOut]
    episodic: list[EpisodicNoteOut]


RENAMED = {"recorded_at": "created_at", "value": "text"}  # response field -> row column

Out = TypeVar("Out", bound=BaseModel)


def _out(model: type[Out], row: Any) -> Out:
    """A row as its response model: each field read from the column of the same name."""
    return model(**{name: getattr(row, RENAMED.get(name, name)) for name in model.model_fields})


async def _rows(session: Any, task_id: str, tenant: str) -> dict[str, list[Any]]:
    facts = await repositories.list_facts(session, tenant_id=tenant, task_id=task_id, limit=5000)
    dead_ends = await repositories.list_dead_ends(
        session, tenant_id=tenant, task_id=task_id, limit=5000
    )
    steps = await repositories.list_ledger_steps(session, task_id=task_id)
    notes = await repositories.list_episodic_notes(session, task_id=task_id)
    return {
        "steps": [_out(LedgerStepOut, r) for r in steps],
        "facts": [_out(LedgerFactOut, r) for r in facts],
        "dead_ends": [_out(LedgerDeadEndOut, r) for r in dead_ends],
        "episodic": [_out(EpisodicNoteOut, r) for r in notes],
    }


@router.get("/{task_id}/ledger", response_model=LedgerOut, responses={404: {}})
async def get_ledger(task_id: TaskIdPath, session: SessionDep, tenant: TenantDep) -> LedgerOut:
    task = await load_task(session, task_id, tenant)
    row = await repositories.get_ledger(session, task_id=task_id)
    return LedgerOut(
        task_id=task_id,
        status=task.status,
        snapshot=row.data if row is not None else None,
        updated_at=row.updated_at if row is not None else None,
        **await _rows(session, task_id, tenant),
    )
