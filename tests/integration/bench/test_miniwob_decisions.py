"""Issue 8 acceptance: on MiniWoB++ tasks whose correct decisions follow from the page, the
scripted model (prompt only, tests/support/miniwob_policies.py, miniwob_composite.py) makes
those decisions and the tool layer must carry them out: any failure here is the action
layer's. The suite runs three representative tasks once (plain input); `make bench` runs every
listed task over three seeds, humanized."""

from __future__ import annotations

import pytest

from tests.integration.bench.conftest import bench_settings, failed_episodes
from tests.support.llm_server import ScriptedLLMServer
from tests.support.miniwob_policies import DECISION_TASKS, miniwob_policy
from workers.bench.suite import CORE_TASKS

pytestmark = pytest.mark.browser

# bulk typing with a secret, a custom autocomplete list, a three-step inbox workflow
REPRESENTATIVE = ("login-user", "use-autocomplete", "email-inbox-forward")


async def test_representative_decisions_are_carried_out(
    chromium_path: str, llm_server: ScriptedLLMServer
) -> None:
    assert set(REPRESENTATIVE) <= set(DECISION_TASKS) <= set(CORE_TASKS)
    llm_server.set_policy(miniwob_policy)
    failed = await failed_episodes(REPRESENTATIVE, 1, bench_settings(chromium_path, llm_server))
    assert not failed, failed


@pytest.mark.bench
@pytest.mark.timeout(3600)  # dozens of episodes: well past the suite's 300 s
async def test_every_decision_task_is_carried_out_over_three_seeds(
    chromium_path: str, llm_server: ScriptedLLMServer
) -> None:
    llm_server.set_policy(miniwob_policy)
    failed = await failed_episodes(
        DECISION_TASKS, 3, bench_settings(chromium_path, llm_server, humanize=True)
    )
    assert not failed, failed
