"""Per-task scratch folders (issue 25): every task's folder (its staged attachments, its
downloads) is gone when the task ends, and the folder of a task whose worker was killed
mid-run is swept once the task is no longer running. Production deployment: API here
(Postgres + Redis), a real `webagent worker`, real Chromium, the scripted model server."""

from __future__ import annotations

import base64
import time
from pathlib import Path

import httpx
import psutil
import pytest

from app.db.migrate import upgrade
from tests.chaos.test_worker_kill import HOLD, policy
from tests.e2e.conftest import production
from tests.support.llm_server import ScriptedLLMServer
from tests.support.sites import TestSite
from tests.support.worker_proc import wait_for
from workers.process.scratch import task_dirs

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.chaos]

TASKS = 20
TERMINAL = {"succeeded", "failed", "timed_out", "cancelled"}


def submit(client: httpx.Client, instruction: str, url: str) -> str:
    """A task with a file attached: its worker stages it in the task's folder."""
    attachment = {"name": "notes.txt", "content_base64": base64.b64encode(b"notes").decode()}
    body = {"instruction": instruction, "start_url": url, "attachments": [attachment]}
    response = client.post("/v1/tasks", json=body)
    assert response.status_code == 202, response.text
    return str(response.json()["id"])


@pytest.mark.timeout(1800)  # 20 browser tasks one after another: ~15 s each at load 30
def test_task_folders_are_removed_after_20_tasks_and_a_killed_worker(
    chromium_path: str,
    postgres_url: str,
    redis_url: str,
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
    tmp_path: Path,
) -> None:
    llm_server.set_policy(policy)
    upgrade(postgres_url)
    files = tmp_path / "task-files"
    with (
        production(
            chromium_path,
            llm_server,
            tmp_path,
            postgres_url,
            redis_url,
            task_files_dir=str(files),
            reaper_interval_s=1.0,
        ) as (url, worker),
        httpx.Client(base_url=url, timeout=30) as client,
    ):
        before = task_dirs(files)
        shop = test_site.url("/")
        ids = [submit(client, "report the shop on the start page", shop) for _ in range(TASKS)]
        seen: set[str] = set()  # folders that existed while their task ran

        def all_done() -> bool:
            seen.update(task_dirs(files))
            return all(client.get(f"/v1/tasks/{t}").json()["status"] in TERMINAL for t in ids)

        wait_for(all_done, 1500, f"{TASKS} tasks to finish")
        statuses = [client.get(f"/v1/tasks/{t}").json()["status"] for t in ids]
        assert statuses == ["succeeded"] * TASKS
        assert seen and seen <= set(ids)  # the tasks did have folders, while they ran
        after_tasks = task_dirs(files)

        held = submit(client, HOLD, test_site.url("/"))
        seen_calls = len(llm_server.requests)
        wait_for(
            lambda: any(HOLD in str(r.get("messages")) for r in llm_server.requests[seen_calls:]),
            90,
            "the held model call",
        )
        assert task_dirs(files) == [held]  # staged before the run began
        psutil.Process(worker.sole_pid()).kill()  # SIGKILL: no `finally` of the job runs
        killed = time.monotonic()
        wait_for(lambda: client.get(f"/v1/tasks/{held}").json()["status"] == "failed", 90, "lost")
        wait_for(lambda: task_dirs(files) == [], 30, "the sweep of the dead task's folder")
        swept_after = time.monotonic() - killed
    print(
        f"folders: before {len(before)}, seen during the runs {len(seen)}, after {TASKS} tasks "
        f"{len(after_tasks)}, after the kill swept in {swept_after:.1f}s"
    )
    assert before == [] and after_tasks == []
