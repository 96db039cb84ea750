"""The loop observes in the task's mode; the naive baseline always observes the whole page."""

from __future__ import annotations

import time
from dataclasses import replace

from workers.agent.loop.loop import run_agent
from workers.agent.loop.naive import run_naive
from workers.agent.protocols import AgentTask, Observation
from workers.agent.testing import FakeBrowser, FakeLLM, Page, RecordingSink, reply

HOME, LIST = "http://site.test/", "http://site.test/list"
PAGES: dict[str, Page] = {HOME: [("link", "List", LIST)], LIST: [("button", "Buy", None)]}


class ModeRecordingBrowser(FakeBrowser):
    """FakeBrowser that remembers the mode of every observe() call."""

    def __init__(self) -> None:
        super().__init__(PAGES)
        self.modes: list[str] = []

    async def observe(self, mode: str = "compact") -> Observation:
        self.modes.append(mode)
        return await super().observe(mode)


def script() -> FakeLLM:
    return FakeLLM(
        [reply(("click", {"ref": "1:1"})), reply(("done", {"answer": "ok", "success": True}))]
    )


def task(mode: str | None = None) -> AgentTask:
    base = AgentTask("buy it", HOME, 5, time.monotonic() + 60)
    return base if mode is None else replace(base, observation_mode=mode)


async def test_default_mode_is_compact() -> None:
    browser = ModeRecordingBrowser()
    outcome = await run_agent(task(), browser, script(), RecordingSink())
    # every observe, the step's and the refresh check after the model call (issue 26 item 7)
    assert outcome.success and set(browser.modes) == {"compact"} and len(browser.modes) >= 2


async def test_loop_passes_the_task_mode_every_step() -> None:
    browser = ModeRecordingBrowser()
    outcome = await run_agent(task("pipeline"), browser, script(), RecordingSink())
    # every observe, the step's and the refresh check after the model call (issue 26 item 7)
    assert outcome.success and set(browser.modes) == {"pipeline"} and len(browser.modes) >= 2


async def test_naive_observes_the_whole_page_whatever_the_task_says() -> None:
    browser = ModeRecordingBrowser()
    outcome = await run_naive(task("pagemem"), browser, script(), RecordingSink())
    # every observe, the step's and the refresh check after the model call (issue 26 item 7)
    assert outcome.success and set(browser.modes) == {"full"} and len(browser.modes) >= 2
