"""MiniWoB++ pointer tasks the tool layer makes reachable (issue 8): the real agent loop on
the real task pages, the scripted model reading only the prompt (tests/support/
miniwob_policies.py). Sliders by focus + arrow keys in one bulk call; sortable lists, SVG
shapes, boxes, text selection and the textarea's resize corner by `drag` from the point a
`dom_search` reported."""

from __future__ import annotations

import pytest

from tests.integration.bench.conftest import bench_settings
from tests.support.llm_server import ScriptedLLMServer
from tests.support.miniwob_policies import miniwob_policy
from workers.bench.miniwob import BenchOptions, run_benchmark
from workers.bench.report import Outcome
from workers.bench.suite import CORE_TASKS, EXCLUDED

pytestmark = pytest.mark.browser

POINTER_TASKS = (
    "use-slider",
    "use-slider-2",
    "drag-items",
    "drag-items-grid",
    "drag-sort-numbers",
    "drag-single-shape",
    "drag-circle",
    "drag-box",
    "drag-shapes",
    "highlight-text",
    "highlight-text-2",
    "resize-textarea",
)


async def test_pointer_tasks_complete_through_the_tools(
    chromium_path: str, llm_server: ScriptedLLMServer
) -> None:
    assert set(POINTER_TASKS) <= set(CORE_TASKS) and not set(POINTER_TASKS) & set(EXCLUDED)
    llm_server.set_policy(miniwob_policy)
    options = BenchOptions(tasks=POINTER_TASKS, episodes=1, seed=7)
    report = await run_benchmark(options, bench_settings(chromium_path, llm_server))
    failed = [
        (e.task, e.outcome, e.raw_reward, e.agent_reason)
        for e in report.episodes
        if e.outcome is not Outcome.success
    ]
    assert not failed, failed
