"""DbApprovalGate on a real database (SQLite and Postgres): the task waits in
awaiting_approval until a decision, a timeout, the task deadline or a cancel; the reaper
leaves a waiting task alone while its worker heartbeats."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app import metrics
from app.contracts import TaskStatus
from app.db import repositories
from app.db.repo_approvals import decide_approval, get_approval, list_approvals
from app.events import MemoryEventBus
from app.reaper import reap_once
from app.settings import Settings
from app.store import open_store
from app.store.records import read_artifact
from tests.integration.workers.conftest import new_task
from workers.adapters.approval_gate import DbApprovalGate, GateConfig
from workers.adapters.sink import DbEventSink
from workers.agent.errors import TaskCancelled
from workers.agent.protocols import ApprovalDecision, ApprovalRequest

pytestmark = [pytest.mark.services, pytest.mark.both_databases]

REQUEST = ApprovalRequest(
    kind="sensitive_action",
    reason="click on button \"Delete account\" ('delete')",
    url="http://127.0.0.1:1/account",
    element='button "Delete account"',
    screenshot=b"\xff\xd8jpeg\xff\xd9",
    details={"rule": "keyword"},
)


@pytest.fixture
async def task_id(sessions: async_sessionmaker[AsyncSession]) -> AsyncIterator[str]:
    tid = await new_task(sessions)
    async with sessions() as s:
        assert await repositories.mark_running(s, task_id=tid, worker_id="w-gate")
        await s.commit()
    yield tid


STORE = open_store(Settings())  # the test session's artifact folder (tests/conftest.py)


def gate_for(
    sessions: async_sessionmaker[AsyncSession], task_id: str, **kw: float
) -> tuple[DbApprovalGate, DbEventSink]:
    sink = DbEventSink(sessions, MemoryEventBus(), task_id, "default", store=STORE)
    config = GateConfig(task_id, "default", **{"timeout_s": 60.0, "poll_s": 0.05, **kw})
    return DbApprovalGate(sessions, sink, config, store=STORE), sink


async def pending(sessions: async_sessionmaker[AsyncSession], task_id: str) -> str:
    """Wait for the request row to appear (the positive signal), return its id."""
    while True:
        async with sessions() as s:
            rows = await list_approvals(s, task_id=task_id)
        if rows:
            return rows[0].id
        await asyncio.sleep(0.02)


async def status_of(sessions: async_sessionmaker[AsyncSession], task_id: str) -> str:
    async with sessions() as s:
        task = await repositories.get_task(s, task_id=task_id)
    assert task is not None
    return task.status


async def events(
    sessions: async_sessionmaker[AsyncSession], task_id: str
) -> list[tuple[str, dict]]:
    async with sessions() as s:
        rows = await repositories.list_events(s, task_id=task_id)
    return [(r.type, r.data) for r in rows]


async def decide(sessions: async_sessionmaker[AsyncSession], approval_id: str, status: str) -> bool:
    async with sessions() as s:
        done = await decide_approval(s, approval_id=approval_id, status=status, decided_by="key:k1")
        await s.commit()
    return done


@pytest.mark.parametrize("answer", ["approved", "denied"])
async def test_request_waits_for_the_decision_then_resumes(
    sessions: async_sessionmaker[AsyncSession], task_id: str, answer: str
) -> None:
    labels = {"kind": "sensitive_action", "decision": answer}
    counted = metrics.sample_value("webagent_approvals_total", labels)
    gate, sink = gate_for(sessions, task_id)
    waiting = asyncio.create_task(gate.request(REQUEST))
    approval_id = await pending(sessions, task_id)
    assert await status_of(sessions, task_id) == TaskStatus.awaiting_approval
    assert not waiting.done()
    assert await decide(sessions, approval_id, answer)
    decision = await asyncio.wait_for(waiting, 10)
    assert decision == ApprovalDecision(approval_id, answer, "key:k1")
    assert decision.approved is (answer == "approved")
    assert metrics.sample_value("webagent_approvals_total", labels) == counted + 1
    assert await status_of(sessions, task_id) == TaskStatus.running
    await sink.flush()  # events are written behind the run (workers/adapters/write_behind.py)
    seen = await events(sessions, task_id)
    assert [t for t, _ in seen] == ["approval.requested", "approval.resolved"]
    requested, resolved = seen[0][1], seen[1][1]
    assert requested["approval_id"] == approval_id and requested["kind"] == "sensitive_action"
    assert requested["element"] == 'button "Delete account"' and requested["url"] == REQUEST.url
    assert requested["screenshot"] and requested["expires_at"]
    assert resolved == {"approval_id": approval_id, "decision": answer, "by": "key:k1"}
    async with sessions() as s:
        row = await get_approval(s, approval_id=approval_id)
        shot = await repositories.get_artifact(s, task_id=task_id, kind="approval", step=1)
        assert shot is not None and await read_artifact(s, STORE, shot) == REQUEST.screenshot
    assert row is not None and row.details["rule"] == "keyword"
    assert row.details["screenshot"] == requested["screenshot"]
    # a second decision does not count
    assert not await decide(sessions, approval_id, "approved")


async def test_no_answer_expires_the_request(
    sessions: async_sessionmaker[AsyncSession], task_id: str
) -> None:
    gate, _ = gate_for(sessions, task_id, timeout_s=0.3)
    decision = await asyncio.wait_for(gate.request(REQUEST), 10)
    assert (decision.status, decision.by, decision.approved) == ("expired", "timeout", False)
    async with sessions() as s:
        row = await get_approval(s, approval_id=decision.approval_id)
    assert row is not None and row.status == "expired" and row.decided_by == "timeout"
    assert await status_of(sessions, task_id) == TaskStatus.running
    # a person answering after the expiry changes nothing
    assert not await decide(sessions, decision.approval_id, "approved")


async def test_the_task_deadline_caps_the_wait(
    sessions: async_sessionmaker[AsyncSession], task_id: str
) -> None:
    gate, _ = gate_for(sessions, task_id, timeout_s=900.0, deadline=time.monotonic() + 0.3)
    decision = await asyncio.wait_for(gate.request(REQUEST), 10)
    assert decision.status == "expired"


async def test_cancel_while_waiting(
    sessions: async_sessionmaker[AsyncSession], task_id: str
) -> None:
    gate, sink = gate_for(sessions, task_id)
    waiting = asyncio.create_task(gate.request(REQUEST))
    approval_id = await pending(sessions, task_id)
    async with sessions() as s:
        await repositories.request_cancel(s, task_id=task_id, tenant_id="default")
        await s.commit()
    with pytest.raises(TaskCancelled):
        await asyncio.wait_for(waiting, 10)
    await sink.flush()
    async with sessions() as s:
        row = await get_approval(s, approval_id=approval_id)
    assert row is not None and (row.status, row.decided_by) == ("expired", "cancelled")
    assert [t for t, _ in await events(sessions, task_id)][-1] == "approval.resolved"


async def test_a_stopped_run_expires_its_request(
    sessions: async_sessionmaker[AsyncSession], task_id: str
) -> None:
    """The loop's deadline cancels the wait: nobody can approve the abandoned request."""
    gate, _ = gate_for(sessions, task_id)
    waiting = asyncio.create_task(gate.request(REQUEST))
    approval_id = await pending(sessions, task_id)
    waiting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert not await decide(sessions, approval_id, "approved")


async def test_reaper_leaves_an_awaiting_task_whose_worker_heartbeats(
    sessions: async_sessionmaker[AsyncSession], task_id: str
) -> None:
    gate, _ = gate_for(sessions, task_id)
    waiting = asyncio.create_task(gate.request(REQUEST))
    approval_id = await pending(sessions, task_id)
    async with sessions() as s:  # what the worker's heartbeat loop does meanwhile
        assert await repositories.heartbeat(s, task_id=task_id, worker_id="w-gate")
        await s.commit()
    assert task_id not in await reap_once(sessions, timeout_s=60)
    assert await status_of(sessions, task_id) == TaskStatus.awaiting_approval
    assert await decide(sessions, approval_id, "approved")
    assert (await asyncio.wait_for(waiting, 10)).approved
