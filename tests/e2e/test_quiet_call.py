"""A 60 s quiet model call under a live SSE client and `webagent run --server` (issue 13,
scenario 8), in both deployments; marked chaos (`make chaos`): it waits out the minute.

Nothing is emitted while the model thinks. The stream must stay open on keep-alive comments
(the client below gives up after 15 s of silence, as a proxy with an idle timeout would) and
deliver every event through `task.finished`; the CLI, watching the same run, must print the
final answer and exit 0.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import ROUTES, Service
from tests.support.llm_server import Reply, tool_reply
from tests.support.procs import die_with_parent
from tests.support.sites import TestSite
from workers.cli.client import parse_sse

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.chaos]

ROOT = Path(__file__).resolve().parents[2]
WEBAGENT = str(Path(sys.executable).with_name("webagent"))
QUIET = "think about the page for a whole minute, then report"
QUIET_S = 60.0
IDLE_LIMIT_S = 15.0  # the watcher's read timeout: longer than sse_ping_s, far below QUIET_S
ANSWER = "thought it over"


def quiet_policy(request: dict[str, Any]) -> Reply:
    return replace(tool_reply(("done", {"answer": ANSWER, "success": True})), delay_s=QUIET_S)


@pytest.fixture(autouse=True)
def quiet_route(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(ROUTES, QUIET, quiet_policy)


def cli(service: Service, site: TestSite, tmp_path: Path) -> subprocess.Popen[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("WEBAGENT_")}
    args = [QUIET, "--url", site.url("/"), "--server", service.base_url, "--timeout", "300"]
    return subprocess.Popen(
        [WEBAGENT, "run", *args, "--json"],
        env={**clean, "WEBAGENT_DATA_DIR": str(tmp_path)},
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=die_with_parent,  # never outlives a killed test run
    )


def submitted(client: httpx.Client, timeout: float = 60) -> str:
    """The id of the CLI's task, once the server has it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for task in client.get("/v1/tasks").json()["items"]:
            if task["instruction"] == QUIET and task["status"] not in ("succeeded", "failed"):
                return str(task["id"])
        time.sleep(0.2)
    raise AssertionError("the CLI's task never reached the server")


def watch(service: Service, task_id: str) -> tuple[list[int], int, float]:
    """Every event seq through task.finished, keep-alive count, longest wait between lines."""
    seqs: list[int] = []
    pings, gap, last = 0, 0.0, time.monotonic()
    timeout = httpx.Timeout(30.0, read=IDLE_LIMIT_S)
    with (
        httpx.Client(base_url=service.base_url, timeout=timeout) as client,
        client.stream("GET", f"/v1/tasks/{task_id}/events") as response,
    ):
        assert response.status_code == 200

        def lines() -> Any:
            nonlocal pings, gap, last
            for line in response.iter_lines():
                now = time.monotonic()
                gap, last = max(gap, now - last), now
                pings += line.startswith(":")
                yield line

        for _, _, data in parse_sse(lines()):
            event = json.loads(data)
            seqs.append(event["seq"])
            if event["type"] == "task.finished":
                break
    return seqs, pings, gap


def test_a_minute_long_model_call_keeps_the_stream_and_the_cli(
    service: Service, e2e_site: TestSite, tmp_path: Path
) -> None:
    proc = cli(service, e2e_site, tmp_path)
    try:
        with service.client() as client:
            task_id = submitted(client)
        started = time.monotonic()
        seqs, pings, gap = watch(service, task_id)
        quiet = time.monotonic() - started
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert quiet >= QUIET_S - 5, "the model call was not that quiet"
    assert seqs == list(range(1, len(seqs) + 1)), seqs  # every event, in order, none twice
    assert pings >= QUIET_S / 10, pings  # keep-alives filled the silence
    assert gap < IDLE_LIMIT_S, gap
    assert proc.returncode == 0, out + err
    task = json.loads(out)
    assert task["id"] == task_id and task["status"] == "succeeded", task
    assert task["result"]["answer"] == ANSWER
