"""MiniWoB++ pointer tasks the tool layer makes reachable (issue 8): the real agent loop on
the real task pages, the scripted model reading only the prompt (tests/support/
miniwob_policies.py). Sliders by focus + arrow keys in one bulk call; sortable lists, SVG
shapes, boxes, text selection and the textarea's resize corner by `drag` from the point a
`dom_search` reported; points by `click_at` at geometry read from the page; colour pickers by
typing the hex. The suite runs three tasks once (plain input); `make bench` runs every pointer
task over three seeds, humanized."""

from __future__ import annotations

import pytest

from tests.integration.bench.conftest import bench_settings, failed_episodes
from tests.support.llm_server import ScriptedLLMServer
from tests.support.miniwob_policies import POINTER_TASKS, miniwob_policy
from workers.bench.suite import CORE_TASKS, EXCLUDED

pytestmark = pytest.mark.browser

# a sortable drag, a text selection by drag, a point placed by geometry (click_at); sliders
# are bench-only: each arrow key waits out its effect check (~0.5 s), 50+ keys per episode
REPRESENTATIVE = ("drag-items", "highlight-text", "circle-center")


async def test_representative_pointer_tasks_complete_through_the_tools(
    chromium_path: str, llm_server: ScriptedLLMServer
) -> None:
    assert set(REPRESENTATIVE) <= set(POINTER_TASKS) <= set(CORE_TASKS)
    assert not set(POINTER_TASKS) & set(EXCLUDED)
    llm_server.set_policy(miniwob_policy)
    failed = await failed_episodes(REPRESENTATIVE, 1, bench_settings(chromium_path, llm_server))
    assert not failed, failed


@pytest.mark.bench
@pytest.mark.timeout(3600)  # dozens of episodes: well past the suite's 300 s
async def test_every_pointer_task_completes_over_three_seeds(
    chromium_path: str, llm_server: ScriptedLLMServer
) -> None:
    llm_server.set_policy(miniwob_policy)
    failed = await failed_episodes(
        POINTER_TASKS, 3, bench_settings(chromium_path, llm_server, humanize=True)
    )
    assert not failed, failed
