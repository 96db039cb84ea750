"""Postgres down 20 s, Redis down 30 s, mid-run (issue 13, scenario 6), production deployment.

The API (here) and a real `webagent worker` subprocess reach the real Postgres and Redis
through `FaultProxy`s, which take the service away (refused connects, reset connections)
and bring it back on the same address. While a task is running:
- Postgres down 20 s: the API answers 503 JSON naming the database with Retry-After; the
  running task survives (its writes are retried), ends `succeeded`, and its events are
  seq 1..n with none missing or written twice.
- Redis down 30 s: submit answers 503; an SSE client connected before the outage
  reconnects and receives every event once through `task.finished`; `/readyz` is 200 again
  within 30 s of Redis returning; the running task survives.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import httpx
import pytest

from app.db.migrate import upgrade
from tests.e2e.conftest import TERMINAL, production, wait_for
from tests.support.faultproxy import FaultProxy
from tests.support.llm_server import Reply, ScriptedLLMServer, tool_reply
from tests.support.policies import find_ref, latest_observation
from tests.support.sites import TestSite
from workers.cli.client import TaskClient

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.chaos]

INSTRUCTION = "page through the counter until told the outage is over"
STEP_S = 0.5
MODEL = "scripted-model"  # the one the scripted server lists: /readyz checks it is served


class Pager:
    """Clicks "Next page" every STEP_S until `over` is set and one more step has run."""

    def __init__(self) -> None:
        self.over = threading.Event()
        self.steps_after = 0

    def __call__(self, request: dict[str, Any]) -> Reply:
        observation = latest_observation(request)
        if self.over.is_set():
            self.steps_after += 1
            if self.steps_after > 1:
                return tool_reply(("done", {"answer": "paged through", "success": True}))
        ref = find_ref(observation, "link", "Next page")
        return replace(tool_reply(("click", {"ref": ref})), delay_s=STEP_S)


def via(url: str, proxy: FaultProxy) -> str:
    """`url` with its host and port replaced by the proxy's."""
    parts = urlsplit(url)
    netloc = parts.netloc.rsplit("@", 1)
    host = f"127.0.0.1:{proxy.port}"
    return urlunsplit(parts._replace(netloc=f"{netloc[0]}@{host}" if len(netloc) == 2 else host))


Run = tuple[str, httpx.Client, str, Pager]  # base URL, client, task id, pager


@pytest.fixture
def paging(
    chromium_path: str,
    postgres_url: str,
    redis_url: str,
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
    tmp_path: Path,
    proxies: tuple[FaultProxy, FaultProxy],
) -> Iterator[Run]:
    """The production deployment (API here + a worker subprocess) on the real services
    through the proxies, with a paging task under way: yields (API base URL, a client of
    it, the task id, its pager)."""
    pg, redis = proxies
    pager = Pager()
    llm_server.set_policy(pager)
    upgrade(postgres_url)
    urls = via(postgres_url, pg), via(redis_url, redis)
    with (
        production(chromium_path, llm_server, tmp_path, *urls, llm_model=MODEL) as (base, _),
        httpx.Client(base_url=base, timeout=30) as client,
    ):
        yield base, client, start_paging(client, test_site), pager


@pytest.fixture
def proxies(postgres_url: str, redis_url: str) -> Iterator[tuple[FaultProxy, FaultProxy]]:
    pg, rd = urlsplit(postgres_url), urlsplit(redis_url)
    with (
        FaultProxy(pg.hostname or "127.0.0.1", pg.port or 5432) as pg_proxy,
        FaultProxy(rd.hostname or "127.0.0.1", rd.port or 6379) as redis_proxy,
    ):
        yield pg_proxy, redis_proxy


def start_paging(client: httpx.Client, site: TestSite) -> str:
    response = client.post(
        "/v1/tasks",
        json={
            "instruction": INSTRUCTION,
            "start_url": site.url("/counter/1"),
            "max_steps": 300,
            "timeout_s": 400,
        },
    )
    assert response.status_code == 202, response.text
    task_id = str(response.json()["id"])
    deadline = time.monotonic() + 120  # a cold worker on a busy machine
    while len(steps(client, task_id)) < 2:  # a positive signal: the run is under way
        assert time.monotonic() < deadline, client.get(f"/v1/tasks/{task_id}").text
        time.sleep(0.2)
    return task_id


def steps(client: httpx.Client, task_id: str) -> list[dict[str, Any]]:
    events = client.get(f"/v1/tasks/{task_id}/steps").json()
    return list(events.get("steps", events) if isinstance(events, dict) else events)


def assert_503_json(response: httpx.Response, unavailable: str) -> None:
    assert response.status_code == 503, response.text
    assert response.json()["unavailable"] == unavailable, response.text
    assert int(response.headers["Retry-After"]) > 0


def contiguous(seqs: list[int]) -> None:
    assert seqs == list(range(1, len(seqs) + 1)), seqs


def test_postgres_down_20s_mid_run(paging: Run, proxies: tuple[FaultProxy, FaultProxy]) -> None:
    pg, rd = proxies
    base, client, task_id, pager = paging
    before = len(steps(client, task_id))
    pg.cut()
    down_at = time.monotonic()
    assert_503_json(client.get(f"/v1/tasks/{task_id}"), "database")
    assert_503_json(client.post("/v1/tasks", json={"instruction": "go"}), "database")
    time.sleep(max(0.0, 20 - (time.monotonic() - down_at)))  # the outage itself
    pg.restore()
    pager.over.set()
    final = wait_for(client, task_id, TERMINAL, timeout=90)
    assert final["status"] == "succeeded", final
    after = steps(client, task_id)
    events = [e.seq for e in TaskClient(base).events(task_id)]
    assert len(after) > before  # it kept working after the database came back
    contiguous(events)
    assert pg.connections > 0 and rd.connections > 0


def test_redis_down_30s_mid_run(paging: Run, proxies: tuple[FaultProxy, FaultProxy]) -> None:
    _, rd = proxies
    base, client, task_id, pager = paging
    seen: list[int] = []
    reader = threading.Thread(
        target=lambda: seen.extend(e.seq for e in TaskClient(base).events(task_id)),
        daemon=True,
    )
    reader.start()
    rd.cut()
    down_at = time.monotonic()
    assert_503_json(client.post("/v1/tasks", json={"instruction": "go"}), "queue")
    time.sleep(max(0.0, 30 - (time.monotonic() - down_at)))  # the outage itself
    rd.restore()
    back_at = time.monotonic()
    while client.get("/readyz").status_code != 200:
        assert time.monotonic() - back_at < 30, client.get("/readyz").text
        time.sleep(0.5)
    ready_after = time.monotonic() - back_at
    pager.over.set()
    final = wait_for(client, task_id, TERMINAL, timeout=90)
    reader.join(60)
    assert final["status"] == "succeeded", final
    contiguous(seen)
    assert seen, "the SSE client received nothing"
    print(f"readyz 200 {ready_after:.1f} s after Redis returned; {len(seen)} events")
