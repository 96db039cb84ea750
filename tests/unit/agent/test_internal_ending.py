"""Issue 31 item 1: an AgentError without its own code ends the run `internal`, and that
ending names the exception's class (the task's error_detail), is logged with its traceback
and counted in webagent_internal_errors_total."""

from __future__ import annotations

import logging
import time

import pytest

from app import metrics
from workers.agent.errors import AgentError
from workers.agent.loop.loop import run_agent
from workers.agent.protocols import Action, AgentTask, ToolResult
from workers.agent.testing import BRAIN_SIDE, FakeBrowser, FakeLLM, RecordingSink, reply


class Unsorted(AgentError):
    """An agent error nobody gave a code: `internal`."""


class RaisingBrowser(FakeBrowser):
    async def execute(self, action: Action) -> ToolResult:
        raise Unsorted("the ledger lost its place")


async def test_an_internal_ending_names_its_exception_logs_and_counts_it(
    caplog: pytest.LogCaptureFixture,
) -> None:
    page = {"http://a.test/": [("button", "OK", None)]}
    llm = FakeLLM([reply(("click", {"ref": "1:1"}))], BRAIN_SIDE)
    task = AgentTask("press OK", "http://a.test/", 4, time.monotonic() + 60)
    counted = metrics.INTERNAL_ERRORS.labels(exception="Unsorted")
    before = counted._value.get()
    with caplog.at_level(logging.ERROR):
        outcome = await run_agent(task, RaisingBrowser(page), llm, RecordingSink())
    assert outcome.error == "internal" and outcome.status == "failed"
    assert outcome.reason == "Unsorted: the ledger lost its place"
    assert counted._value.get() == before + 1
    assert any(r.exc_info or r.exc_text for r in caplog.records), caplog.records
