"""A task whose model endpoint cannot serve it fails before a browser opens its start page
(workers/llm/endpoint_check.py, issue 37): the real job path on the embedded worker, with
the base URL at a closed port, or at a server refusing the API key. The detail names the
setting to fix; the start page is never requested and no step runs."""

from __future__ import annotations

import socket
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from app.contracts import ErrorCode, TaskStatus
from app.db.migrate import upgrade
from app.events import MemoryEventBus
from app.settings import Settings
from bench.support import serve
from tests.integration.workers.conftest import new_task
from tests.integration.workers.test_jobs import Sessions, stored_events, wait_terminal
from tests.support.sites import TestSite
from workers.process.embedded import EmbeddedWorkers

pytestmark = [pytest.mark.browser]


@pytest.fixture
def db_url(sqlite_url: str) -> str:
    upgrade(sqlite_url)
    return sqlite_url


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def _refuse(request: Request) -> JSONResponse:
    return JSONResponse({"error": {"message": "invalid api key"}}, status_code=401)


@pytest.fixture(scope="module")
def refusing() -> Iterator[str]:
    """An OpenAI-like server that refuses every key."""
    app = Starlette(routes=[Route("/v1/{path:path}", _refuse, methods=["GET", "POST"])])
    with serve(app) as origin:
        yield f"{origin}/v1"


async def _workers(chromium_path: str, db_url: str, base_url: str) -> EmbeddedWorkers:
    settings = Settings(
        chromium_path=chromium_path,
        database_url=db_url,
        llm_base_url=base_url,
        llm_max_retries=0,
        allow_private_networks=True,
        heartbeat_interval_s=0.2,
    )
    return EmbeddedWorkers(settings, MemoryEventBus(), 1)


@pytest.fixture
async def unreachable(chromium_path: str, db_url: str) -> AsyncIterator[EmbeddedWorkers]:
    workers = await _workers(chromium_path, db_url, f"http://127.0.0.1:{_closed_port()}/v1")
    workers.start()
    try:
        yield workers
    finally:
        workers.stop()


@pytest.fixture
async def unauthorised(
    chromium_path: str, db_url: str, refusing: str
) -> AsyncIterator[EmbeddedWorkers]:
    workers = await _workers(chromium_path, db_url, refusing)
    workers.start()
    try:
        yield workers
    finally:
        workers.stop()


async def _run(workers: EmbeddedWorkers, sessions: Sessions, start_url: str) -> tuple[Any, Any]:
    task_id = await new_task(sessions, start_url=start_url, max_steps=3)
    workers.submit(task_id)
    task = await wait_terminal(sessions, task_id)
    return task, [r.type for r in await stored_events(sessions, task_id)]


async def test_an_unreachable_endpoint_fails_the_task_before_the_browser(
    unreachable: EmbeddedWorkers, sessions: Sessions, test_site: TestSite
) -> None:
    path = "/?endpoint-check=unreachable"
    task, types = await _run(unreachable, sessions, test_site.url(path))
    assert path not in test_site.paths  # the start page was never asked for
    assert (task.status, task.error) == (TaskStatus.failed, ErrorCode.configuration), task
    assert "unreachable (WEBAGENT_LLM_BASE_URL)" in task.error_detail
    assert "before the browser opened" in task.error_detail
    assert "step.started" not in types and "action.executed" not in types


async def test_a_refused_key_fails_the_task_before_the_browser(
    unauthorised: EmbeddedWorkers, sessions: Sessions, test_site: TestSite
) -> None:
    path = "/?endpoint-check=refused"
    task, types = await _run(unauthorised, sessions, test_site.url(path))
    assert path not in test_site.paths  # the start page was never asked for
    assert (task.status, task.error) == (TaskStatus.failed, ErrorCode.configuration), task
    assert "refused the API key with HTTP 401 (WEBAGENT_LLM_API_KEY)" in task.error_detail
    assert "step.started" not in types and "action.executed" not in types
