"""SIGTERM with a short grace while a job runs: the task ends failed/interrupted, exit 0."""

from __future__ import annotations

import asyncio
import dataclasses
import os
import signal
import subprocess
from pathlib import Path

import pytest

from app.contracts import TaskStatus
from app.db import create_engine, repositories, session_factory
from app.dispatch import RqDispatcher
from tests.integration.workers.conftest import new_task
from tests.integration.workers.test_supervisor import WEBAGENT, free_port, metrics_up, wait_for
from tests.support.llm_server import ScriptedLLMServer, text_reply
from tests.support.sites import TestSite

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.chaos]


async def test_sigterm_with_short_grace_interrupts_the_running_task(
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
    # a model call far longer than the grace: the job cannot finish in time
    llm_server.set_policy(lambda req: dataclasses.replace(text_reply("..."), delay_s=60))
    log = open(tmp_path / "worker.log", "wb")  # noqa: SIM115 - closed in finally
    proc = subprocess.Popen(
        [WEBAGENT, "worker", "--concurrency", "1", "--grace", "2"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=tmp_path,
    )
    engine = create_engine(migrated_pg_url)
    sessions = session_factory(engine)
    try:
        await asyncio.to_thread(wait_for, lambda: metrics_up(port), 120, "worker metrics")
        task_id = await new_task(sessions, start_url=test_site.url("/"), timeout_s=120)
        dispatcher = RqDispatcher(redis_url)
        await dispatcher.enqueue(task_id, timeout_s=120)
        dispatcher.close()
        await asyncio.to_thread(wait_for, lambda: llm_server.requests, 60, "the model call")

        proc.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(proc.wait, 30) == 0
        async with sessions() as s:
            task = await repositories.get_task(s, task_id=task_id)
            rows = await repositories.list_events(s, task_id=task_id)
        if task is None or task.status != TaskStatus.failed:
            print((tmp_path / "worker.log").read_text()[-3000:])
        assert task is not None and (task.status, task.error) == (TaskStatus.failed, "interrupted")
        assert rows[-1].type == "task.finished" and rows[-1].data["error"] == "interrupted"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
        log.close()
        await engine.dispose()
