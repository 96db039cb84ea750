"""The lease both queued jobs share (workers/process/lease.py): a beat that finds the row no
longer this worker's stops the body with OwnershipLost; a database error in a beat is retried;
a cancel from outside stays a cancel; `run_claimed` runs the work only on a claimed row, with
its budget plus the finishing grace."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, cast

import pytest
from sqlalchemy.exc import OperationalError

from workers.process import lease
from workers.process.runtime import WorkerRuntime

INTERVAL_S = 0.01


class Beats:
    """Answers of successive beats: True (owned), False (lost) or an exception."""

    def __init__(self, *answers: bool | Exception) -> None:
        self.answers = list(answers)
        self.calls = 0

    async def __call__(self) -> bool:
        self.calls += 1
        answer = self.answers.pop(0) if self.answers else True
        if isinstance(answer, Exception):
            raise answer
        return answer


async def test_a_lost_row_stops_the_body_with_ownership_lost() -> None:
    beats = Beats(True, OperationalError("SELECT", {}, Exception("db blip")), False)
    reached_end = False
    with pytest.raises(lease.OwnershipLost):
        async with lease.heartbeat(beats, interval_s=INTERVAL_S, name="row-1"):
            await asyncio.sleep(30)
            reached_end = True
    assert not reached_end and beats.calls == 3


async def test_an_owned_row_runs_to_its_end() -> None:
    beats = Beats()
    async with lease.heartbeat(beats, interval_s=INTERVAL_S, name="row-2"):
        await asyncio.sleep(INTERVAL_S * 5)
    assert beats.calls >= 1


async def test_a_cancel_from_outside_stays_a_cancel() -> None:
    async def body() -> None:
        async with lease.heartbeat(Beats(), interval_s=INTERVAL_S, name="row-3"):
            await asyncio.sleep(30)

    running = asyncio.create_task(body())
    await asyncio.sleep(INTERVAL_S * 3)
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running


class FakeRuntime:
    """`run` records each coroutine's timeout and runs it on a fresh loop."""

    def __init__(self) -> None:
        self.timeouts: list[float | None] = []

    def run(self, factory: Callable[[], Coroutine[Any, Any, Any]], timeout: float | None) -> Any:
        self.timeouts.append(timeout)
        return asyncio.run(factory())


def test_run_claimed_runs_the_work_only_on_a_claimed_row() -> None:
    done: list[str] = []

    async def claim(rt: WorkerRuntime, row_id: str) -> str | None:
        return None if row_id == "taken" else f"row {row_id}"

    async def work(rt: WorkerRuntime, row: str) -> None:
        done.append(row)

    rt = FakeRuntime()
    runtime = cast(WorkerRuntime, rt)
    lease.run_claimed(runtime, "job", "taken", claim, work, lambda row: 10.0)
    assert done == [] and rt.timeouts == [lease.CLAIM_TIMEOUT_S]
    lease.run_claimed(runtime, "job", "a", claim, work, lambda row: 10.0)
    assert done == ["row a"]
    assert rt.timeouts[-1] == 10.0 + lease.FINISH_GRACE_S
