"""Issue 8 acceptance: on MiniWoB++ tasks whose correct decisions follow from the page, the
scripted model (prompt only, tests/support/miniwob_policies.py) makes those decisions and the
tool layer must carry them out: any failure here is the action layer's."""

from __future__ import annotations

import pytest

from tests.integration.bench.conftest import bench_settings
from tests.support.llm_server import ScriptedLLMServer
from tests.support.miniwob_policies import miniwob_policy
from workers.bench.miniwob import BenchOptions, run_benchmark
from workers.bench.report import Outcome
from workers.bench.suite import CORE_TASKS

pytestmark = pytest.mark.browser

DECISION_TASKS = (
    "login-user",
    "enter-password",
    "choose-list",
    "click-checkboxes",
    "click-option",
    "use-autocomplete",
    "click-tab-2",
    "focus-text",
    "click-dialog",
    "click-collapsible",
)


async def test_element_level_decisions_are_carried_out(
    chromium_path: str, llm_server: ScriptedLLMServer
) -> None:
    assert set(DECISION_TASKS) <= set(CORE_TASKS)
    llm_server.set_policy(miniwob_policy)
    options = BenchOptions(tasks=DECISION_TASKS, episodes=1, seed=7)
    report = await run_benchmark(options, bench_settings(chromium_path, llm_server))
    failed = [
        (e.task, e.outcome, e.raw_reward, e.agent_reason)
        for e in report.episodes
        if e.outcome is not Outcome.success
    ]
    assert not failed, failed
