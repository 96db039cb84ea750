"""SIGTERM with a short grace while a job runs: the task ends failed/interrupted, exit 0."""

from __future__ import annotations

import asyncio
import dataclasses
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from app.contracts import TaskStatus
from app.db import create_engine, repositories, session_factory
from app.db.types import utcnow
from app.dispatch import RqDispatcher
from tests.integration.workers.conftest import new_task
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_reply
from tests.support.sites import TestSite
from tests.support.worker_proc import wait_for, worker_process

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.chaos]


async def queue_a_task(
    sessions: Any, redis_url: str, test_site: TestSite, llm_server: ScriptedLLMServer
) -> str:
    """A task on the queue, returned once the worker is in its first model call."""
    task_id = await new_task(sessions, start_url=test_site.url("/"), timeout_s=120)
    dispatcher = RqDispatcher(redis_url)
    await dispatcher.enqueue(task_id, timeout_s=120)
    dispatcher.close()
    await asyncio.to_thread(wait_for, lambda: llm_server.requests, 60, "the model call")
    return task_id


async def test_sigterm_with_short_grace_interrupts_the_running_task(
    supervisor_env: dict[str, str],
    migrated_pg_url: str,
    redis_url: str,
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
    tmp_path: Path,
) -> None:
    # a model call far longer than the grace: the job cannot finish in time
    llm_server.set_policy(lambda req: dataclasses.replace(text_reply("..."), delay_s=60))
    engine = create_engine(migrated_pg_url)
    sessions = session_factory(engine)
    try:
        with worker_process(supervisor_env, tmp_path / "worker.log", grace=2) as worker:
            task_id = await queue_a_task(sessions, redis_url, test_site, llm_server)

            worker.proc.send_signal(signal.SIGTERM)
            assert await asyncio.to_thread(worker.proc.wait, 30) == 0
            async with sessions() as s:
                task = await repositories.get_task(s, task_id=task_id)
                rows = await repositories.list_events(s, task_id=task_id)
            if task is None or task.status != TaskStatus.failed:
                print(worker.log_tail())
            assert task is not None
            assert (task.status, task.error) == (TaskStatus.failed, "interrupted")
            assert rows[-1].type == "task.finished" and rows[-1].data["error"] == "interrupted"
    finally:
        await engine.dispose()


async def test_sigterm_with_a_long_grace_lets_the_task_finish_then_exits(
    supervisor_env: dict[str, str],
    migrated_pg_url: str,
    redis_url: str,
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
    tmp_path: Path,
) -> None:
    """The drain as the README says it: the running task finishes within `--grace`, then
    the supervisor exits 0 (how long after the task is printed: an independent probe saw
    ~12 s with --grace 60)."""
    llm_server.set_policy(
        lambda req: dataclasses.replace(
            tool_reply(("done", {"answer": "done", "success": True})), delay_s=3
        )
    )
    engine = create_engine(migrated_pg_url)
    sessions = session_factory(engine)
    try:
        with worker_process(supervisor_env, tmp_path / "worker.log", grace=60) as worker:
            task_id = await queue_a_task(sessions, redis_url, test_site, llm_server)
            worker.proc.send_signal(signal.SIGTERM)
            assert await asyncio.to_thread(worker.proc.wait, 90) == 0
            exited = time.monotonic()
            async with sessions() as s:
                task = await repositories.get_task(s, task_id=task_id)
            assert task is not None and task.status == TaskStatus.succeeded, worker.log_tail()
            assert task.finished_at is not None
            after = exited - time.monotonic() + (utcnow() - task.finished_at).total_seconds()
            print(f"supervisor exited {after:.1f} s after the task finished")
            assert after < 30, worker.log_tail()  # closing up, not waiting out the grace
    finally:
        await engine.dispose()
