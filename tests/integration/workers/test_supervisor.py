"""`webagent worker` as operators run it: processes, metrics, crash restart, clean SIGTERM."""

from __future__ import annotations

import asyncio
import os
import re
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import psutil
import pytest

from app.contracts import TaskStatus
from app.db import create_engine, repositories, session_factory
from app.dispatch import RqDispatcher
from tests.integration.workers.conftest import new_task
from tests.integration.workers.test_jobs import read_home_policy
from tests.support.llm_server import ScriptedLLMServer
from tests.support.sites import TestSite
from workers.supervisor import STANDBY_NAME

pytestmark = [pytest.mark.browser, pytest.mark.services]

WEBAGENT = str(Path(sys.executable).with_name("webagent"))


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for(predicate: object, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def metrics_up(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def worker_pids(proc: subprocess.Popen[bytes]) -> set[int]:
    """The supervisor's worker processes: spawned (not the multiprocessing resource tracker),
    not the idle standby (WEBAGENT_WORKER_STANDBY; it names itself until promoted)."""
    kids = psutil.Process(proc.pid).children()
    spawned = [k for k in kids if "spawn_main" in " ".join(k.cmdline())]
    return {k.pid for k in spawned if _name(k) != STANDBY_NAME}


def _name(process: psutil.Process) -> str:
    try:
        return process.name()
    except psutil.Error:
        return ""


async def test_worker_processes_run_restart_and_stop(
    chromium_path: str,
    migrated_pg_url: str,
    redis_url: str,
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
    tmp_path: Path,
) -> None:
    port = free_port()
    env = {
        **os.environ,
        "WEBAGENT_DATABASE_URL": migrated_pg_url,
        "WEBAGENT_REDIS_URL": redis_url,
        "WEBAGENT_LLM_BASE_URL": llm_server.base_url,
        "WEBAGENT_LLM_MAX_RETRIES": "0",
        "WEBAGENT_CHROMIUM_PATH": chromium_path,
        "WEBAGENT_ALLOW_PRIVATE_NETWORKS": "true",
        "WEBAGENT_WORKER_METRICS_PORT": str(port),
        "WEBAGENT_DATA_DIR": str(tmp_path),
    }
    log = open(tmp_path / "worker.log", "wb")  # noqa: SIM115 - closed in finally
    proc = subprocess.Popen(
        [WEBAGENT, "worker", "--concurrency", "1", "--grace", "20"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=tmp_path,
    )
    engine = create_engine(migrated_pg_url)
    sessions = session_factory(engine)
    try:
        await asyncio.to_thread(wait_for, lambda: metrics_up(port), 120, "worker metrics")

        llm_server.set_policy(read_home_policy)
        task_id = await new_task(sessions, start_url=test_site.url("/"), max_steps=3)
        dispatcher = RqDispatcher(redis_url)
        await dispatcher.enqueue(task_id, timeout_s=60)
        dispatcher.close()
        for _ in range(600):
            async with sessions() as s:
                task = await repositories.get_task(s, task_id=task_id)
            if task is not None and TaskStatus(task.status).terminal:
                break
            await asyncio.sleep(0.2)
        if task is None or task.status != TaskStatus.succeeded:
            print((tmp_path / "worker.log").read_text()[-3000:])  # shown on failure
        assert task is not None and task.status == TaskStatus.succeeded, task
        assert task.worker_id and ":w0:" in task.worker_id
        body = httpx.get(f"http://127.0.0.1:{port}/metrics").text
        assert 'webagent_tasks_finished_total{status="succeeded"} 1.0' in body
        # the agent's own series are recorded in the worker process that ran it
        assert 'webagent_step_duration_seconds_count{action="done"} 1.0' in body
        assert re.search(r'webagent_llm_requests_total\{[^}]*role="worker"[^}]*\} 1\.0', body)
        assert re.search(r'webagent_llm_latency_seconds_count\{role="worker"\} 1\.0', body)
        assert 'webagent_browsers{state="idle"} 1.0' in body

        # crash the worker process: the supervisor starts a new one
        (pid,) = worker_pids(proc)
        child = psutil.Process(pid)
        child.kill()
        child.wait(10)
        await asyncio.to_thread(
            wait_for,
            lambda: len(worker_pids(proc) - {pid}) == 1 and metrics_up(port),
            120,
            "restarted worker",
        )

        proc.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(proc.wait, 60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        log.close()
        await engine.dispose()
    assert not psutil.pid_exists(proc.pid) or psutil.Process(proc.pid).status() == "zombie"
