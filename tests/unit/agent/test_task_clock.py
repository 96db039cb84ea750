"""The task's clock stands still while a person holds the page (workers/agent/clock.py,
issue 37 item 1), up to its allowance; the loop's step budget follows it."""

from __future__ import annotations

import asyncio
import re
import time

import pytest

from workers.agent.clock import TaskClock
from workers.agent.context.history import RunClock
from workers.agent.loop.loop import run_agent
from workers.agent.people.takeover import Takeover, TakeoverBrowser
from workers.agent.protocols import AgentTask
from workers.agent.testing import FakeBrowser, FakeLLM, InMemoryMemoryStore, RecordingSink, reply

HOME = "http://site.test/"


class Now:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def test_a_pause_moves_the_deadline_by_the_time_it_took_up_to_the_allowance() -> None:
    now = Now()
    clock = TaskClock(1100.0, max_pause_s=50.0, now=now)
    clock.pause()
    now.t += 20
    assert clock.left_s() == 100.0 and clock.pause_left_s() == 30.0  # standing still
    assert clock.deadline == 1150.0  # while paused: the whole allowance left
    clock.resume()
    assert clock.deadline == 1120.0 and clock.left_s() == 100.0
    clock.pause()
    now.t += 45  # 30 s of allowance left: the clock runs again after them
    assert clock.pause_left_s() == 0.0 and clock.left_s() == 85.0
    clock.resume()
    assert clock.paused_s == 50.0 and clock.deadline == 1150.0 and clock.allowance_s() == 0.0


async def test_a_bounded_wait_outlives_its_deadline_while_paused_and_not_after() -> None:
    clock = TaskClock(time.monotonic() + 0.2, max_pause_s=3600.0)
    async with clock.bounded():
        clock.pause()
        await asyncio.sleep(0.5)  # past the first deadline: paused, nothing happens
        clock.resume()
    with pytest.raises(TimeoutError):
        async with clock.bounded():
            await asyncio.sleep(5)  # the deadline moved by the pause only


async def test_the_loop_is_not_timed_out_by_a_takeover_longer_than_its_time_left() -> None:
    sink = RecordingSink()
    deadline = time.monotonic() + 3.0  # room for the loop to reach its first step under load
    clock = TaskClock(deadline, max_pause_s=3600.0)
    task = AgentTask("count the clicks", HOME, 5, deadline, clock=clock)
    takeover = Takeover(sink, clock)
    browser = TakeoverBrowser(FakeBrowser({HOME: [("button", "Add one", None)]}), takeover)
    llm = FakeLLM([reply(("done", {"answer": "done", "success": True}))])
    await takeover.request("local")
    run = asyncio.create_task(run_agent(task, browser, llm, sink, memory=InMemoryMemoryStore()))
    while not takeover.paused:
        await asyncio.sleep(0)
    while time.monotonic() < deadline + 0.3:  # the person holds the page past the deadline
        await asyncio.sleep(0.05)
    assert clock.paused and clock.left_s() > 0
    await takeover.hand_back("local")
    outcome = await run
    assert outcome.success, outcome


def test_the_models_clock_line_counts_the_time_a_takeover_gave_back() -> None:
    clock = TaskClock(time.monotonic() + 100, max_pause_s=600.0)
    line = RunClock.start(clock.base, "UTC", clock)
    assert re.search(r"\b(99|100) s left", line.line(0))
    clock.paused_s = 300.0  # a takeover held the page for 5 minutes
    assert re.search(r"\b(399|400) s left", line.line(0))
