"""run_task with settings.observation_mode: the service observes in the configured mode,
perception's LLM calls land in the task's usage, and a mode the settings cannot serve fails
the task as a configuration error before any browser or LLM work."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from app.contracts import ErrorCode, TaskStatus
from app.events import MemoryEventBus
from tests.integration.workers.conftest import new_task
from tests.integration.workers.test_jobs import stored_events, wait_terminal, worker_settings
from tests.support.llm_server import ScriptedLLMServer, request_role
from tests.support.policies import cheapest_product_policy, latest_observation
from tests.support.sites import TestSite, cheapest
from tests.support.summarizer import is_summarizer_request, with_summarizer
from workers.process.embedded import EmbeddedWorkers

pytestmark = [pytest.mark.browser, pytest.mark.services]

CHEAPEST = "Find the cheapest product in the shop and its price."
Start = Callable[..., Any]


@pytest.fixture
async def start_workers(
    chromium_path: str, db_url: str, llm_server: ScriptedLLMServer
) -> AsyncIterator[Start]:
    """Start embedded workers with extra settings; stopped at teardown."""
    started: list[EmbeddedWorkers] = []

    async def start(**kw: Any) -> EmbeddedWorkers:
        settings = worker_settings(chromium_path, db_url, llm_server, **kw)
        workers = EmbeddedWorkers(settings, MemoryEventBus(), 1)
        await asyncio.to_thread(workers.start)
        started.append(workers)
        return workers

    yield start
    for workers in started:
        await asyncio.to_thread(workers.stop)


async def test_pipeline_mode_counts_summarizer_calls_in_the_task_usage(
    start_workers: Start, sessions: Any, llm_server: ScriptedLLMServer, test_site: TestSite
) -> None:
    llm_server.set_policy(with_summarizer(cheapest_product_policy))
    workers = await start_workers(observation_mode="pipeline")
    task_id = await new_task(
        sessions, start_url=test_site.url("/"), max_steps=8, instruction=CHEAPEST
    )
    workers.submit(task_id)
    task = await wait_terminal(sessions, task_id)

    best = cheapest()
    assert task.status == TaskStatus.succeeded, task.error_detail
    assert task.answer == f"{best.name} at {best.price}"
    summarizer = [r for r in llm_server.requests if is_summarizer_request(r)]
    planner = [r for r in llm_server.requests if request_role(r) == "planner"]
    worker = [r for r in llm_server.requests if not is_summarizer_request(r) and r not in planner]
    assert summarizer and worker
    assert all("\n\nControls:\n" in latest_observation(r) for r in worker)
    # one usage row for everything the task asked of the LLM, perception included
    assert task.llm_calls == len(llm_server.requests)
    assert task.input_tokens == sum(llm_server.prompt_tokens())
    rows = await stored_events(sessions, task_id)
    calls = [r.data for r in rows if r.type == "llm.call"]
    perception = [c for c in calls if c["role"] == "summarizer"]
    assert len(perception) == len(summarizer) and all(c["step"] is None for c in perception)
    assert [c["role"] for c in calls].count("worker") == len(worker) == task.steps
    assert rows[-1].data["usage"]["llm_calls"] == task.llm_calls


async def test_vision_mode_without_opt_in_fails_as_configuration(
    start_workers: Start, sessions: Any, llm_server: ScriptedLLMServer, test_site: TestSite
) -> None:
    llm_server.set_policy(cheapest_product_policy)
    workers = await start_workers(observation_mode="vision", vision_enabled=False)
    task_id = await new_task(sessions, start_url=test_site.url("/"))
    workers.submit(task_id)
    task = await wait_terminal(sessions, task_id)

    assert (task.status, task.error) == (TaskStatus.failed, ErrorCode.configuration)
    assert "vision_enabled" in (task.error_detail or "")
    assert llm_server.requests == [] and test_site.paths == []
    rows = await stored_events(sessions, task_id)
    assert rows[-1].type == "task.finished" and rows[-1].data["error"] == "configuration"
