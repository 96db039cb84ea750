"""kill -9 of a worker process mid-step (issue 13, scenario 1), production deployment: API
here (Postgres + Redis), a real `webagent worker` supervisor with one worker process, real
Chromium, the scripted model server. The task ends failed/worker_lost within 90 s, every
event committed before the kill replays over SSE, the supervisor's warm standby takes the
dead slot, the next task starts within 30 s of the kill, and the killed task's work never
runs again."""

from __future__ import annotations

import dataclasses
import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx
import psutil
import pytest
import redis
from rq.registry import StartedJobRegistry

from app.contracts import QUEUE_NAME
from app.db.migrate import upgrade
from tests.e2e.conftest import production
from tests.integration.workers.test_jobs import read_home_policy
from tests.support.llm_server import Reply, ScriptedLLMServer, text_reply
from tests.support.policies import latest_observation
from tests.support.sites import TestSite
from tests.support.worker_proc import wait_for
from workers.cli.client import parse_sse
from workers.process.supervisor import STANDBY_NAME

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.chaos]

HOLD = "hold the page open until killed"


def policy(request: dict[str, Any]) -> Reply:
    if HOLD in str(request.get("messages")) and latest_observation(request):
        return dataclasses.replace(text_reply("thinking"), delay_s=120)
    return read_home_policy(request)


def sse_events(client: httpx.Client, task_id: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    with client.stream("GET", f"/v1/tasks/{task_id}/events", timeout=60.0) as response:
        assert response.status_code == 200
        for _, _, data in parse_sse(response.iter_lines()):
            events.append(json.loads(data))
            if events[-1]["type"] == "task.finished":
                break
    return events


def standby_pids(proc: subprocess.Popen[bytes]) -> set[int]:
    """The warm standby: the spawned child named so, once its Chromium is up."""
    warm = set()
    for kid in psutil.Process(proc.pid).children():
        try:
            if kid.name() != STANDBY_NAME:
                continue
            if any("chrom" in c.name().lower() for c in kid.children(recursive=True)):
                warm.add(kid.pid)
        except psutil.Error:
            continue
    return warm


def submit(client: httpx.Client, instruction: str, url: str) -> str:
    response = client.post("/v1/tasks", json={"instruction": instruction, "start_url": url})
    assert response.status_code == 202, response.text
    return str(response.json()["id"])


def test_kill_9_mid_step_fails_the_task_and_the_pool_carries_on(
    chromium_path: str,
    postgres_url: str,
    redis_url: str,
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
    tmp_path: Path,
) -> None:
    llm_server.set_policy(policy)
    upgrade(postgres_url)
    with (
        production(chromium_path, llm_server, tmp_path, postgres_url, redis_url) as (url, worker),
        httpx.Client(base_url=url) as client,
    ):
        proc = worker.proc
        held = submit(client, HOLD, test_site.url("/"))
        seen = len(llm_server.requests)
        wait_for(
            lambda: any(HOLD in str(r.get("messages")) for r in llm_server.requests[seen:]),
            90,
            "the held model call",
        )
        before = client.get(f"/v1/tasks/{held}").json()
        assert before["status"] == "running"
        wait_for(lambda: standby_pids(proc), 120, "the warm standby")
        (standby,) = standby_pids(proc)
        pid = worker.sole_pid()
        psutil.Process(pid).kill()  # SIGKILL mid model call
        killed = time.monotonic()
        nxt = submit(client, "report the shop on the start page", test_site.url("/"))

        wait_for(lambda: client.get(f"/v1/tasks/{held}").json()["status"] == "failed", 90, "lost")
        lost_after = time.monotonic() - killed
        body = client.get(f"/v1/tasks/{held}").json()
        assert body["error"] == "worker_lost", body
        assert lost_after < 90
        in_progress = StartedJobRegistry(QUEUE_NAME, connection=redis.Redis.from_url(redis_url))
        assert held not in in_progress.get_job_ids()  # not "running" in rq's registry either

        events = sse_events(client, held)
        seqs = [e["seq"] for e in events]
        assert seqs == list(range(1, len(seqs) + 1))  # no gap, no duplicate
        assert events[-1]["type"] == "task.finished"
        assert events[-1]["data"]["error"] == "worker_lost"
        assert "observation" in [e["type"] for e in events]  # committed before the kill

        wait_for(lambda: len(worker.pids() - {pid}) == 1, 60, "respawned worker")
        assert worker.pids() == {standby}  # the standby took the slot
        wait_for(
            lambda: client.get(f"/v1/tasks/{nxt}").json()["status"] != "queued",
            60,
            "the next task to start",
        )
        started_after = time.monotonic() - killed
        assert started_after < 30, f"next task started {started_after:.1f}s after the kill"
        wait_for(
            lambda: client.get(f"/v1/tasks/{nxt}").json()["status"] == "succeeded",
            90,
            "the next task to succeed",
        )
        held_calls = [r for r in llm_server.requests if HOLD in str(r.get("messages"))]
        assert len([r for r in held_calls if latest_observation(r)]) == 1  # never re-run
        print(f"worker_lost after {lost_after:.1f}s, next task started {started_after:.1f}s")
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
