"""The cancel watcher (workers/process/cancellation.py): it interrupts the running body once a
cancel is requested, and a check the loop made itself counts as one of its polls."""

from __future__ import annotations

import asyncio
import time

import pytest

from workers.agent.errors import TaskCancelled
from workers.process.cancellation import cancel_on_request

POLL_S = 0.05


class Flag:
    """A cancel flag; `calls` counts the reads, `at` is when the latest one happened."""

    def __init__(self) -> None:
        self.set = False
        self.calls = 0
        self.at = 0.0

    async def requested(self) -> bool:
        self.calls += 1
        self.at = time.monotonic()
        return self.set


async def test_a_requested_cancel_interrupts_the_body_within_a_poll() -> None:
    flag = Flag()
    with pytest.raises(TaskCancelled):
        async with cancel_on_request(flag.requested, poll_s=POLL_S, checked_at=lambda: flag.at):
            flag.set = True
            await asyncio.sleep(30)  # an in-flight model call


async def test_the_loops_own_checks_count_as_polls() -> None:
    # the loop reports a check of its own at every moment (checked_at is always "just now"),
    # so the watcher never needs to ask; with real sleeps between the loop's checks the count
    # depended on how late the scheduler woke each side (22 > 21 under load)
    flag = Flag()
    async with cancel_on_request(flag.requested, poll_s=POLL_S, checked_at=time.monotonic):
        await asyncio.sleep(POLL_S * 6)
    assert flag.calls == 0, flag.calls

    quiet = Flag()
    async with cancel_on_request(quiet.requested, poll_s=POLL_S, checked_at=lambda: quiet.at):
        while quiet.calls < 3:  # nobody else asks: the watcher polls on its own
            await asyncio.sleep(POLL_S / 5)
    assert quiet.calls >= 3
