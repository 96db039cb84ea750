"""Per-task model budgets end the task cleanly with the budget named (workers/adapters/budget.py):
the real job path on the embedded worker, the scripted model server and a local site."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from sqlalchemy import update

from app.contracts import ErrorCode, TaskStatus
from app.db import Task
from app.db.migrate import upgrade
from app.events import MemoryEventBus
from tests.integration.workers.conftest import new_task
from tests.integration.workers.test_jobs import (
    Sessions,
    read_home_policy,
    stored_events,
    wait_terminal,
    worker_settings,
)
from tests.support.llm_server import ScriptedLLMServer
from tests.support.sites import TestSite
from workers.process.embedded import EmbeddedWorkers

pytestmark = [pytest.mark.browser]

MODEL = "budget-test-model"
# $1000 per 1M tokens both ways: a scripted call of a few thousand prompt tokens costs dollars
PRICES = {"budget-test": (1000.0, 1000.0)}  # a prefix of MODEL


@pytest.fixture
def db_url(sqlite_url: str) -> str:
    upgrade(sqlite_url)
    return sqlite_url


@pytest.fixture
async def workers(
    chromium_path: str, db_url: str, llm_server: ScriptedLLMServer
) -> AsyncIterator[EmbeddedWorkers]:
    settings = worker_settings(chromium_path, db_url, llm_server, llm_model=MODEL)
    settings = settings.model_copy(update={"llm_prices": PRICES})
    pool = EmbeddedWorkers(settings, MemoryEventBus(), 1)
    pool.start()
    try:
        yield pool
    finally:
        pool.stop()


async def _run(
    workers: EmbeddedWorkers, sessions: Sessions, site: TestSite, **limits: Any
) -> tuple[Any, list[Any]]:
    task_id = await new_task(sessions, start_url=site.url("/"), max_steps=3)
    async with sessions() as s:
        await s.execute(update(Task).where(Task.id == task_id).values(**limits))
        await s.commit()
    workers.submit(task_id)
    task = await wait_terminal(sessions, task_id)
    return task, await stored_events(sessions, task_id)


async def test_max_tokens_ends_the_task_at_the_crossing_call(
    workers: EmbeddedWorkers,
    sessions: Sessions,
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
) -> None:
    llm_server.set_policy(read_home_policy)  # the model answers done on its first call
    task, rows = await _run(workers, sessions, test_site, max_tokens=200)
    assert (task.status, task.error) == (TaskStatus.failed, ErrorCode.budget_exceeded)
    assert "max_tokens=200" in task.error_detail
    calls = [r.data for r in rows if r.type == "llm.call"]
    assert len(calls) == 1  # the crossing call is reported, and nothing runs on its answer
    assert task.input_tokens + task.output_tokens > 200
    assert task.input_tokens == calls[0]["input_tokens"]
    assert not [r for r in rows if r.type == "action.executed" and r.data["action"] == "done"]
    finished = rows[-1]
    assert finished.type == "task.finished" and finished.data["error"] == "budget_exceeded"


async def test_max_cost_usd_is_priced_by_model_prefix(
    workers: EmbeddedWorkers,
    sessions: Sessions,
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
) -> None:
    llm_server.set_policy(read_home_policy)
    task, _ = await _run(workers, sessions, test_site, max_cost_usd=0.05)
    assert (task.status, task.error) == (TaskStatus.failed, ErrorCode.budget_exceeded)
    assert "max_cost_usd=0.05" in task.error_detail


async def test_a_budget_that_suffices_changes_nothing(
    workers: EmbeddedWorkers,
    sessions: Sessions,
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
) -> None:
    llm_server.set_policy(read_home_policy)
    task, _ = await _run(workers, sessions, test_site, max_tokens=10**7, max_cost_usd=10_000)
    assert task.status == TaskStatus.succeeded, task.error_detail


async def test_a_cost_budget_without_a_price_is_a_configuration_error(
    chromium_path: str,
    db_url: str,
    sessions: Sessions,
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
) -> None:
    settings = worker_settings(chromium_path, db_url, llm_server, llm_model="unpriced-model")
    pool = EmbeddedWorkers(settings, MemoryEventBus(), 1)
    pool.start()
    try:
        llm_server.set_policy(read_home_policy)
        task, rows = await _run(pool, sessions, test_site, max_cost_usd=1.0)
    finally:
        pool.stop()
    assert (task.status, task.error) == (TaskStatus.failed, ErrorCode.configuration)
    assert "WEBAGENT_LLM_PRICES" in task.error_detail and "unpriced-model" in task.error_detail
    assert not [r for r in rows if r.type == "llm.call"]
