"""`webagent worker` as operators run it: processes, metrics, crash restart, clean SIGTERM."""

from __future__ import annotations

import asyncio
import re
import signal
from pathlib import Path

import httpx
import psutil
import pytest

from app.contracts import TaskStatus
from app.db import create_engine, session_factory
from app.dispatch import RqDispatcher
from tests.integration.workers.conftest import new_task
from tests.integration.workers.test_jobs import read_home_policy, wait_terminal
from tests.support.llm_server import ScriptedLLMServer
from tests.support.sites import TestSite
from tests.support.worker_proc import metrics_up, wait_for, worker_process

pytestmark = [pytest.mark.browser, pytest.mark.services]


async def test_worker_processes_run_restart_and_stop(
    supervisor_env: dict[str, str],
    migrated_pg_url: str,
    redis_url: str,
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
    tmp_path: Path,
) -> None:
    engine = create_engine(migrated_pg_url)
    sessions = session_factory(engine)
    try:
        with worker_process(supervisor_env, tmp_path / "worker.log", grace=20) as worker:
            llm_server.set_policy(read_home_policy)
            task_id = await new_task(sessions, start_url=test_site.url("/"), max_steps=3)
            dispatcher = RqDispatcher(redis_url)
            await dispatcher.enqueue(task_id, timeout_s=60)
            dispatcher.close()
            task = await wait_terminal(sessions, task_id)
            if task is None or task.status != TaskStatus.succeeded:
                print(worker.log_tail())  # shown on failure
            assert task is not None and task.status == TaskStatus.succeeded, task
            assert task.worker_id and ":w0:" in task.worker_id
            body = httpx.get(worker.metrics_url).text
            assert 'webagent_tasks_finished_total{status="succeeded"} 1.0' in body
            # the agent's own series are recorded in the worker process that ran it
            assert 'webagent_step_duration_seconds_count{action="done"} 1.0' in body
            assert re.search(r'webagent_llm_requests_total\{[^}]*role="worker"[^}]*\} 1\.0', body)
            assert re.search(r'webagent_llm_latency_seconds_count\{role="worker"\} 1\.0', body)
            assert 'webagent_browsers{state="idle"} 1.0' in body

            # crash the worker process: the supervisor starts a new one
            pid = await asyncio.to_thread(worker.sole_pid)
            child = psutil.Process(pid)
            child.kill()
            child.wait(10)
            await asyncio.to_thread(
                wait_for,
                lambda: len(worker.pids() - {pid}) == 1 and metrics_up(worker.port),
                120,
                "restarted worker",
            )

            worker.proc.send_signal(signal.SIGTERM)
            assert await asyncio.to_thread(worker.proc.wait, 60) == 0
    finally:
        await engine.dispose()
    gone = worker.proc.pid
    assert not psutil.pid_exists(gone) or psutil.Process(gone).status() == "zombie"


def test_a_stop_while_the_standby_warms_up_leaves_no_process_behind(
    supervisor_env: dict[str, str], tmp_path: Path
) -> None:
    """SIGTERM while the warm standby is still starting (imports, Chromium): the idle standby
    holds no task, so it is terminated, not waited for; nothing of its tree stays behind."""
    with worker_process(supervisor_env, tmp_path / "worker.log", grace=20) as worker:
        root = psutil.Process(worker.proc.pid)

        def warming() -> list[psutil.Process]:
            found = []
            for p in root.children():
                try:
                    if p.name() == "wa-standby":  # workers.process.supervisor.STANDBY_NAME
                        found.append(p)
                except psutil.Error:
                    continue
            return found

        wait_for(lambda: warming(), 90, "the standby to start")
        tree = [root, *root.children(recursive=True)]
        worker.proc.send_signal(signal.SIGTERM)
        assert worker.proc.wait(60) == 0

    def alive(p: psutil.Process) -> bool:
        try:
            return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
        except psutil.Error:
            return False

    wait_for(lambda: not any(alive(p) for p in tree), 30, "the supervisor's processes to end")
