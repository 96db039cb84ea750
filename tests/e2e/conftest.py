"""End-to-end fixtures: the real service over HTTP in both deployments.

`service` is parametrized over the embedded deployment (SQLite + in-process workers, one
process) and production (Postgres + Redis/rq API here, plus a real `webagent worker`
subprocess). Both talk to the same scripted OpenAI-compatible LLM server and local test
site; the LLM routes each request to a policy by the task's instruction text.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from app.db import create_engine, repositories, session_factory
from app.db.migrate import upgrade
from app.settings import Settings
from bench.support import serve
from tests.support.llm_server import Reply, ScriptedLLMServer, error_reply, tool_reply
from tests.support.policies import cheapest_product_policy, find_ref, latest_observation
from tests.support.sites import TestSite
from tests.support.worker_proc import Worker, worker_env, worker_process
from tests.support.worker_proc import wait_for as wait_ready
from workers.process.embedded import build_app

TERMINAL = ("succeeded", "failed", "cancelled", "timed_out")
TASK_BLOCK = re.compile(r"<task>\s*(?P<text>.*?)\s*</task>", re.DOTALL)

# Instructions the routing LLM recognises (the model reads only the prompt).
SHOP = "find the cheapest product and give its name and price"
SLOW_SHOP = "slowly find the cheapest product and give its name and price"
ENDLESS = "keep reading the next page forever"
STEP_DELAY_S = 0.4
# settings of the shared `service` deployments beyond _settings' (approvals are quick to see)
SHARED: dict[str, Any] = {"approval_poll_s": 0.1}
READY_TIMEOUT_S = 120.0  # the production worker's boot (Chromium launch) on a loaded machine


def task_text(request: dict[str, Any]) -> str:
    """The instruction as rendered into the prompt's <task> block."""
    for message in request.get("messages", []):
        content = message.get("content")
        if isinstance(content, str) and (match := TASK_BLOCK.search(content)):
            return match["text"]
    return ""


def delayed(policy: Callable[[dict[str, Any]], Reply], delay_s: float) -> Any:
    """The same answers, each after `delay_s` (makes a run last long enough to watch it)."""
    return lambda request: replace(policy(request), delay_s=delay_s)


def next_page_policy(request: dict[str, Any]) -> Reply:
    """Never finishes: always follows the counter's "Next page" link."""
    ref = find_ref(latest_observation(request), "link", "Next page")
    return replace(tool_reply(("click", {"ref": ref})), delay_s=STEP_DELAY_S)


ROUTES: dict[str, Callable[[dict[str, Any]], Reply]] = {
    SLOW_SHOP: delayed(cheapest_product_policy, STEP_DELAY_S),
    SHOP: cheapest_product_policy,
    ENDLESS: next_page_policy,
}


def routing_policy(request: dict[str, Any]) -> Reply:
    """Concurrent tasks of different tests stay independent: route by instruction."""
    text = task_text(request)
    for instruction, policy in ROUTES.items():
        if text.startswith(instruction):
            return policy(request)
    return error_reply(500, f"no e2e route for instruction {text[:80]!r}")


@pytest.fixture(scope="session")
def e2e_llm() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer(routing_policy) as server:
        yield server


@pytest.fixture(scope="session")
def e2e_site() -> Iterator[TestSite]:
    with TestSite() as site:
        yield site


def _settings(chromium: str, llm: ScriptedLLMServer, data_dir: Path, **kw: Any) -> Settings:
    """An embedded deployment's settings; plain input unless asked, as worker_settings() in
    tests/integration/workers/test_jobs.py says why (`webagent run` in test_cli_e2e.py keeps
    the humanized default)."""
    kw.setdefault("humanize", False)
    return Settings(
        chromium_path=chromium,
        data_dir=str(data_dir),
        llm_base_url=llm.base_url,
        llm_api_key=SecretStr("e2e-key"),
        llm_max_retries=0,
        allow_private_networks=True,
        browser_pool_size=1,
        heartbeat_interval_s=1.0,
        sse_ping_s=5.0,
        sse_db_poll_s=1.0,
        default_timeout_s=60.0,
        **kw,
    )


@dataclass
class Service:
    """One running deployment as a test sees it."""

    mode: str
    base_url: str
    database_url: str
    worker_metrics_url: str | None = None  # production: the worker process's /metrics

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, timeout=30.0)

    def stored_events(self, task_id: str) -> list[Any]:
        """The task's persisted event rows, straight from the database."""

        async def read() -> list[Any]:
            engine = create_engine(self.database_url)
            try:
                async with session_factory(engine)() as s:
                    rows = await repositories.list_events(
                        s, task_id=task_id, after_seq=0, limit=10_000
                    )
                    return list(rows)
            finally:
                await engine.dispose()

        return asyncio.run(read())


@contextmanager
def embedded(
    chromium: str, llm: ScriptedLLMServer, data_dir: Path, **kw: Any
) -> Iterator[tuple[str, Settings]]:
    """The embedded deployment (SQLite + in-process workers); yields (base URL, settings)."""
    settings = _settings(chromium, llm, data_dir, **kw)
    upgrade(settings.effective_database_url)
    with serve(build_app(settings)) as base_url:
        yield base_url, settings


@contextmanager
def production(
    chromium: str,
    llm: ScriptedLLMServer,
    data_dir: Path,
    database_url: str,
    redis_url: str,
    **kw: Any,
) -> Iterator[tuple[str, Worker]]:
    """The API here plus a real `webagent worker` subprocess, both on `database_url` and
    `redis_url`; yields (API base URL, the worker). `kw`: more Settings for both."""
    settings = _settings(
        chromium, llm, data_dir, database_url=database_url, redis_url=redis_url, **kw
    )
    env = worker_env(
        database_url=database_url,
        redis_url=redis_url,
        llm_base_url=llm.base_url,
        chromium_path=chromium,
        data_dir=data_dir,
        browser_pool_size=settings.browser_pool_size,
        heartbeat_interval_s=settings.heartbeat_interval_s,
        **kw,
    )
    with (
        worker_process(env, data_dir / "worker.log") as worker,
        serve(build_app(settings)) as base_url,
    ):
        # the worker answers /metrics before its Chromium is up and it listens on the queue
        # (28 s under load): a test's own time budget must not pay for the boot
        wait_ready(lambda: _ready(base_url), READY_TIMEOUT_S, "the worker on the queue")
        yield base_url, worker


def _ready(base_url: str) -> bool:
    """/readyz's `browser` check: a live worker (warm Chromium) listens on the queue (its
    `llm` check fails here: the scripted server serves another model name)."""
    try:
        checks = httpx.get(f"{base_url}/readyz", timeout=5).json()["checks"]
    except (httpx.HTTPError, ValueError, KeyError):
        return False
    return bool(checks.get("browser", {}).get("ok"))


@pytest.fixture(scope="package", params=["embedded", "production"])
def service(
    request: pytest.FixtureRequest,
    chromium_path: str,
    e2e_llm: ScriptedLLMServer,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Service]:
    """One deployment for every e2e test that runs against it (production: API here + a
    worker subprocess), set up once per package: tests route by instruction (ROUTES), so
    they stay independent on the shared one. The worker lives only while tests/e2e runs,
    so it never takes jobs that later tests enqueue on the shared Redis database."""
    data_dir = tmp_path_factory.mktemp(f"data-{request.param}")
    if request.param == "embedded":
        with embedded(chromium_path, e2e_llm, data_dir, **SHARED) as (base_url, settings):
            yield Service("embedded", base_url, settings.effective_database_url)
        return
    pg: str = request.getfixturevalue("postgres_url")
    redis_url: str = request.getfixturevalue("redis_url")
    upgrade(pg)
    with production(chromium_path, e2e_llm, data_dir, pg, redis_url, **SHARED) as (url, worker):
        yield Service("production", url, pg, worker_metrics_url=worker.metrics_url)


def submit(client: httpx.Client, instruction: str, start_url: str, **extra: Any) -> str:
    response = client.post(
        "/v1/tasks", json={"instruction": instruction, "start_url": start_url, **extra}
    )
    assert response.status_code == 202, response.text
    return str(response.json()["id"])


def wait_for(
    client: httpx.Client, task_id: str, statuses: tuple[str, ...], timeout: float = 60
) -> dict[str, Any]:
    """Poll GET /v1/tasks/{id} until its status is one of `statuses`; returns the body."""
    deadline = time.monotonic() + timeout
    while True:
        body: dict[str, Any] = client.get(f"/v1/tasks/{task_id}").json()
        if body["status"] in statuses:
            return body
        assert time.monotonic() < deadline, f"task stuck in {body['status']}: {body}"
        time.sleep(0.1)


def wait_terminal(client: httpx.Client, task_id: str, timeout: float = 60) -> dict[str, Any]:
    body: dict[str, Any] = wait_for(client, task_id, TERMINAL, timeout)
    return body
