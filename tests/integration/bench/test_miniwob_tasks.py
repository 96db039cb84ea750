"""Issue 8 acceptance on MiniWoB++: the real agent loop on the real task pages, the scripted
model reading only the prompt (tests/support/miniwob_policies.py, miniwob_composite.py).

Decision tasks: the correct decisions follow from the page; the scripted model makes them and
the tool layer must carry them out, so any failure here is the action layer's.
Pointer tasks the tool layer makes reachable: sliders by focus + arrow keys in one bulk call;
sortable lists, SVG shapes, boxes, text selection and the textarea's resize corner by `drag`
from the point a `dom_search` reported; points by `click_at` at geometry read from the page;
colour pickers by typing the hex.

The suite runs three representative tasks of each kind once, in one harness run (plain
input); `make bench` runs every listed task over three seeds, humanized.
"""

from __future__ import annotations

import pytest

from tests.integration.bench.conftest import bench_settings, failed_episodes
from tests.support.llm_server import ScriptedLLMServer
from tests.support.miniwob_policies import DECISION_TASKS, POINTER_TASKS, miniwob_policy
from workers.bench.suite import CORE_TASKS, EXCLUDED

pytestmark = pytest.mark.browser

# bulk typing with a secret, a custom autocomplete list, a three-step inbox workflow
DECISIONS = ("login-user", "use-autocomplete", "email-inbox-forward")
# a sortable drag, a text selection by drag, a point placed by geometry (click_at); sliders
# are bench-only: each arrow key waits out its effect check (~0.5 s), 50+ keys per episode
POINTERS = ("drag-items", "highlight-text", "circle-center")


def test_the_task_lists_are_core_tasks() -> None:
    assert set(DECISIONS) <= set(DECISION_TASKS) <= set(CORE_TASKS)
    assert set(POINTERS) <= set(POINTER_TASKS) <= set(CORE_TASKS)
    assert not set(POINTER_TASKS) & set(EXCLUDED)


async def test_representative_decision_and_pointer_tasks_are_carried_out(
    chromium_path: str, llm_server: ScriptedLLMServer
) -> None:
    llm_server.set_policy(miniwob_policy)
    settings = bench_settings(chromium_path, llm_server)
    failed = await failed_episodes(DECISIONS + POINTERS, 1, settings)
    assert not failed, failed


@pytest.mark.bench
@pytest.mark.timeout(3600)  # dozens of episodes: well past the suite's 300 s
@pytest.mark.parametrize("tasks", [DECISION_TASKS, POINTER_TASKS], ids=["decision", "pointer"])
async def test_every_task_is_carried_out_over_three_seeds(
    chromium_path: str, llm_server: ScriptedLLMServer, tasks: tuple[str, ...]
) -> None:
    llm_server.set_policy(miniwob_policy)
    settings = bench_settings(chromium_path, llm_server, humanize=True)
    failed = await failed_episodes(tasks, 3, settings)
    assert not failed, failed
