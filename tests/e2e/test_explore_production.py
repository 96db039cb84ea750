"""Site exploration through the production path (issue 21): the API here on Postgres + Redis
enqueues the exploration job, a real `webagent worker` (rq) runs it, the API reads its status
and result; a cancel stops a running exploration without a WebsiteMem; an exploration whose
worker process died (kill -9) is reaped to failed/worker_lost. Real Chromium, no model call."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import httpx
import psutil
import pytest
from typer.testing import CliRunner

from app.db.migrate import upgrade
from tests.e2e.conftest import production
from tests.support.background import BackgroundServer
from tests.support.explore_site import ExploreSite
from tests.support.llm_server import ScriptedLLMServer
from tests.support.worker_proc import Worker, wait_for
from workers.cli.main import cli

pytestmark = [pytest.mark.browser, pytest.mark.services]

SLOW_S = 1.0  # every page of the slow site answers after this long
SLOW_PAGES = 40


class SlowSite(BackgroundServer):
    """A site of SLOW_PAGES linked pages, each served after SLOW_S: an exploration of it runs
    for tens of seconds. `requests` lists the paths asked for."""

    def __init__(self) -> None:
        self.requests: list[str] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                site.requests.append(self.path)
                time.sleep(SLOW_S)
                links = "".join(f'<a href="/p/{n}">Page {n}</a> ' for n in range(SLOW_PAGES))
                body = f"<!doctype html><title>Slow {self.path}</title><nav>{links}</nav>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.end_headers()
                self.wfile.write(body.encode())

            def log_message(self, *args: Any) -> None:
                return

        super().__init__(Handler)


@pytest.fixture(scope="module")
def deployment(
    chromium_path: str,
    postgres_url: str,
    redis_url: str,
    e2e_llm: ScriptedLLMServer,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[str, Worker]]:
    upgrade(postgres_url)
    data_dir = tmp_path_factory.mktemp("explore-production")
    quick_reaper = {"heartbeat_timeout_s": 4.0, "reaper_interval_s": 1.0}
    # its own queue: the package's production worker on the same Redis database takes jobs
    # of the shared queue, and it ran the exploration this module kills the worker of
    own_queue = {"queue_name": f"explore-{uuid.uuid4().hex[:8]}"}
    with production(
        chromium_path, e2e_llm, data_dir, postgres_url, redis_url, **quick_reaper, **own_queue
    ) as running:
        yield running


def explore(client: httpx.Client, url: str, **extra: Any) -> str:
    body = {"url": url, "max_depth": 1, "max_pages": 50, "timeout_s": 120, **extra}
    started = client.post("/v1/sites/explore", json=body)
    assert started.status_code == 202, started.text
    return str(started.json()["id"])


def status_of(client: httpx.Client, exploration_id: str) -> dict[str, Any]:
    out: dict[str, Any] = client.get(f"/v1/sites/explore/{exploration_id}").json()
    return out


def ends(client: httpx.Client, worker: Worker, job: str, status: str, timeout: float) -> None:
    try:
        wait_for(lambda: status_of(client, job)["status"] == status, timeout, status)
    except AssertionError:
        raise AssertionError(f"{status_of(client, job)}\n{worker.log_tail()}") from None


def test_an_exploration_runs_on_an_rq_worker(
    deployment: tuple[str, Worker], e2e_llm: ScriptedLLMServer
) -> None:
    base, worker = deployment
    calls = len(e2e_llm.requests)
    with ExploreSite() as site, httpx.Client(base_url=base, timeout=30) as client:
        job = explore(client, site.url("/"), max_depth=2)
        ends(client, worker, job, "succeeded", 240)
        out = status_of(client, job)
        assert out["version"] >= 1 and out["error"] is None
        titles = {p["url"].removeprefix(site.origin): p["title"] for p in out["result"]["pages"]}
        assert titles["/products"] == "All products" and titles["/products/3"] == "Blue teapot"
        assert out["progress"]["pages"] == len(out["result"]["pages"])
        newest = client.get("/v1/sites/127.0.0.1").json()
        assert newest["version"] == out["version"] and newest["exploration_id"] == job
    assert "/logout" not in site.requests
    assert len(e2e_llm.requests) == calls  # no model call


def test_a_cancel_stops_a_running_exploration(deployment: tuple[str, Worker]) -> None:
    base, _ = deployment
    with SlowSite() as site, httpx.Client(base_url=base, timeout=30) as client:
        job = explore(client, f"{site.origin}/")
        wait_for(lambda: len(site.requests) >= 3, 90, "the walk to be under way")
        assert status_of(client, job)["status"] == "running"
        shown = CliRunner().invoke(cli, ["explore", "--cancel", job, "--server", base])
        assert shown.exit_code == 0, shown.output
        assert f"exploration {job} of 127.0.0.1 cancelled" in shown.output
        # the worker's next heartbeat (1 s) stops the walk: the requests stop growing
        wait_for(lambda: _settled(site), 30, "the walk to stop")
        out = status_of(client, job)
        assert out["status"] == "cancelled" and out["version"] is None and out["result"] is None
        assert len(site.requests) < SLOW_PAGES
        again = client.post(f"/v1/sites/explore/{job}/cancel")
        assert again.status_code == 200 and again.json()["status"] == "cancelled"
        assert client.post("/v1/sites/explore/nosuchid/cancel").status_code == 404


def _settled(site: SlowSite) -> bool:
    seen = len(site.requests)
    time.sleep(3 * SLOW_S)
    return len(site.requests) == seen


def test_an_exploration_whose_worker_died_is_reaped(deployment: tuple[str, Worker]) -> None:
    base, worker = deployment
    with SlowSite() as site, httpx.Client(base_url=base, timeout=30) as client:
        job = explore(client, f"{site.origin}/")
        wait_for(lambda: len(site.requests) >= 2, 90, "the walk to be under way")
        assert status_of(client, job)["status"] == "running"
        psutil.Process(worker.sole_pid()).kill()  # SIGKILL mid walk: no heartbeat any more
        ends(client, worker, job, "failed", 60)
        out = status_of(client, job)
        assert out["error"] == "worker_lost" and out["version"] is None
        assert "no heartbeat since" in out["error_detail"]
