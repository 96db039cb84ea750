"""evaluate_script is an opt-in tool (seed 000 App. A): the Worker is offered it only for a
task with allow_scripts, and a profile that leaves scripts out (data_entry) wins over it.
The browser's refusal of a call without the opt-in is tested on Chromium
(tests/integration/browser/test_gallery.py, tests/e2e/test_attachments_e2e.py)."""

from __future__ import annotations

import time

import pytest

from workers.agent.loop.loop import run_agent
from workers.agent.protocols import AgentTask
from workers.agent.testing import BRAIN_SIDE, FakeBrowser, FakeLLM, RecordingSink, reply

HOME = "http://shop.example/"
PAGES = {HOME: [("button", "Buy", None)]}


@pytest.mark.parametrize(
    ("allow_scripts", "profile", "offered"),
    [(False, "general", False), (True, "general", True), (True, "data_entry", False)],
)
async def test_evaluate_script_is_offered_only_with_the_opt_in(
    allow_scripts: bool, profile: str, offered: bool
) -> None:
    task = AgentTask(
        "buy it",
        HOME,
        4,
        time.monotonic() + 60,
        task_profile=profile,
        allow_scripts=allow_scripts,
    )
    llm = FakeLLM([reply(("done", {"answer": "x", "success": True}))], BRAIN_SIDE)
    await run_agent(task, FakeBrowser(PAGES), llm, RecordingSink())
    assert ("evaluate_script" in llm.offered[0]) is offered
    assert "click" in llm.offered[0]
