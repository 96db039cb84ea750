"""The worker's ApprovalGate: pause the task in the database until a person decides.

request(): store the page's screenshot (artifact kind "approval"), insert a pending approval
row and move the task running -> awaiting_approval in one transaction, emit
`approval.requested`, then poll the row (every `approval_poll_s`) until the API records a
decision (`POST /v1/tasks/{id}/approvals/{aid}`), a cancel is requested, or the wait runs
out: at `approval_timeout_s` or the task's deadline, whichever comes first, the row is
expired (a denial). Then the task is `running` again and `approval.resolved` is emitted.

The worker keeps heartbeating while it waits (workers/jobs.py), so the reaper never takes
an awaiting task for a lost one.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from app import metrics
from app.contracts import ApprovalPolicy, ApprovalStatus, EventType, TaskSpec
from app.db import repositories
from app.db.repo_approvals import create_approval, decide_approval, get_approval
from app.db.types import utcnow
from app.settings import Settings
from app.store import ArtifactStore
from app.store.records import keep_artifact
from workers.agent.errors import ConfigurationError, TaskCancelled
from workers.agent.people.supervised import Supervision
from workers.agent.protocols import ApprovalDecision, ApprovalRequest, ChallengeSolver, EventSink

log = logging.getLogger(__name__)

SessionFactory = Callable[[], Any]  # async_sessionmaker[AsyncSession]
APPROVAL_SCREENSHOT = "approval"  # artifact kind, read by app/api/approvals.py
TIMEOUT_BY = "timeout"
CANCELLED_BY = "cancelled"


@dataclass(frozen=True)
class GateConfig:
    task_id: str
    tenant_id: str
    timeout_s: float  # settings.approval_timeout_s
    poll_s: float = 0.5  # settings.approval_poll_s
    deadline: float | None = None  # the task's time.monotonic() deadline


class DbApprovalGate:
    """ApprovalGate over the approvals table; one per task run."""

    def __init__(
        self,
        sessions: SessionFactory,
        sink: EventSink,
        config: GateConfig,
        *,
        store: ArtifactStore | None = None,
    ) -> None:
        self.store = store  # where the approval screenshot goes (app/store)
        self.sessions = sessions
        self.sink = sink
        self.config = config
        self.asked = 0

    def _wait_s(self) -> float:
        wait = self.config.timeout_s
        if self.config.deadline is not None:
            wait = min(wait, self.config.deadline - time.monotonic())
        return max(wait, 0.0)

    async def request(self, request: ApprovalRequest) -> ApprovalDecision:
        self.asked += 1
        wait_s = self._wait_s()
        approval_id, shot, expires_at = await self._open(request, self.asked, wait_s)
        started = time.monotonic()
        try:
            await self.sink.emit(
                EventType.approval_requested,
                {
                    "approval_id": approval_id,
                    "kind": request.kind,
                    "reason": request.reason,
                    "url": request.url,
                    "element": request.element or None,
                    "screenshot": shot,
                    "expires_at": expires_at,
                },
            )
            decision = await self._wait(approval_id, time.monotonic() + wait_s)
        except BaseException:  # a cancel or the task deadline: nobody may approve it later
            await asyncio.shield(self._close(approval_id, CANCELLED_BY))
            raise
        await self._resume(decision)
        metrics.approval_decided(request.kind, decision.status, time.monotonic() - started)
        return decision

    async def _open(
        self, request: ApprovalRequest, n: int, wait_s: float
    ) -> tuple[str, str | None, str]:
        """Screenshot, row and status change in one transaction."""
        cfg = self.config
        expires = utcnow() + timedelta(seconds=wait_s)
        async with self.sessions() as s:
            shot = None
            if request.screenshot and self.store is not None:
                shot = await keep_artifact(
                    s,
                    self.store,
                    task_id=cfg.task_id,
                    tenant_id=cfg.tenant_id,
                    kind=APPROVAL_SCREENSHOT,
                    step=n,
                    content_type="image/jpeg",
                    data=request.screenshot,
                )
            details = {
                **request.details,
                "url": request.url,
                "element": request.element or None,
                "screenshot": shot,
                "screenshot_step": n if shot else None,
            }
            row = await create_approval(
                s,
                task_id=cfg.task_id,
                tenant_id=cfg.tenant_id,
                kind=request.kind,
                reason=request.reason,
                details=details,
                expires_at=expires,
            )
            await repositories.set_awaiting_approval(s, task_id=cfg.task_id, awaiting=True)
            await s.commit()
            return row.id, shot, expires.isoformat()

    async def _poll(self, approval_id: str) -> tuple[str, str, bool]:
        """(status, decided_by, cancel requested) as stored now."""
        async with self.sessions() as s:
            row = await get_approval(s, approval_id=approval_id)
            cancel = await repositories.is_cancel_requested(s, task_id=self.config.task_id)
        if row is None:  # the task (and with it the row) was deleted
            return ApprovalStatus.expired.value, CANCELLED_BY, True
        return row.status, row.decided_by or "", cancel

    async def _wait(self, approval_id: str, until: float) -> ApprovalDecision:
        while True:
            try:
                status, by, cancel = await self._poll(approval_id)
            except (SQLAlchemyError, OSError) as exc:  # a DB blip: ask again next round
                log.warning("approval %s: poll failed: %r", approval_id, exc)
            else:
                if status != ApprovalStatus.pending:
                    return ApprovalDecision(approval_id, status, by)
                if cancel:
                    raise TaskCancelled("cancel requested while awaiting approval")
                if time.monotonic() >= until and await self._expire(approval_id):
                    return ApprovalDecision(approval_id, ApprovalStatus.expired.value, TIMEOUT_BY)
            await asyncio.sleep(self.config.poll_s)

    async def _expire(self, approval_id: str) -> bool:
        """Expire it unless a person decided at the last moment (then the next poll reads it)."""
        async with self.sessions() as s:
            expired = await decide_approval(
                s, approval_id=approval_id, status=ApprovalStatus.expired, decided_by=TIMEOUT_BY
            )
            await s.commit()
        return expired

    async def _resume(self, decision: ApprovalDecision) -> None:
        async with self.sessions() as s:
            await repositories.set_awaiting_approval(s, task_id=self.config.task_id, awaiting=False)
            await s.commit()
        await self.sink.emit(
            EventType.approval_resolved,
            {"approval_id": decision.approval_id, "decision": decision.status, "by": decision.by},
        )

    async def _close(self, approval_id: str, by: str) -> None:
        """The run stopped while waiting: expire the request and say so (best effort)."""
        try:
            async with self.sessions() as s:
                await decide_approval(
                    s, approval_id=approval_id, status=ApprovalStatus.expired, decided_by=by
                )
                await s.commit()
            status, decided_by, _ = await self._poll(approval_id)
            await self._resume(ApprovalDecision(approval_id, status, decided_by))
        except (SQLAlchemyError, OSError) as exc:
            log.warning("approval %s not closed: %r", approval_id, exc)


def load_solver(path: str) -> ChallengeSolver | None:
    """The operator's ChallengeSolver from "package.module:factory" (settings
    challenge_solver); a class or factory is called without arguments. None when unset."""
    if not path:
        return None
    module, _, attr = path.partition(":")
    try:
        found: Any = getattr(importlib.import_module(module), attr or "solver")
    except (ImportError, AttributeError, ValueError) as exc:
        raise ConfigurationError(f"WEBAGENT_CHALLENGE_SOLVER={path!r}: {exc}") from exc
    is_instance = isinstance(found, ChallengeSolver) and not isinstance(found, type)
    solver = found if is_instance or not callable(found) else found()
    if not isinstance(solver, ChallengeSolver):
        raise ConfigurationError(
            f"WEBAGENT_CHALLENGE_SOLVER={path!r} is not a ChallengeSolver (async solve())"
        )
    return solver


def supervision_of(spec: TaskSpec, settings: Settings) -> Supervision:
    """approval_policy "sensitive": sensitive actions and challenges wait for a person
    (after the operator's solver, when one is configured)."""
    on = spec.approval_policy == ApprovalPolicy.sensitive
    solver = load_solver(settings.challenge_solver) if on else None
    return Supervision(
        sensitive_actions=on,
        challenges=on,
        solver=solver,
        scripts_allowed=spec.allow_scripts,
        instruction=spec.instruction,
    )


def approval_gate(
    sessions: SessionFactory,
    settings: Settings,
    spec: TaskSpec,
    sink: EventSink,
    store: ArtifactStore | None = None,
) -> DbApprovalGate:
    """The task's gate; waits at most approval_timeout_s and never past the task's time."""
    config = GateConfig(
        task_id=spec.task_id,
        tenant_id=spec.tenant_id,
        timeout_s=spec.approval_timeout_s or settings.approval_timeout_s,
        poll_s=settings.approval_poll_s,
        deadline=time.monotonic() + spec.timeout_s,
    )
    return DbApprovalGate(sessions, sink, config, store=store)
