"""Issue 31 item 1, end to end through the embedded service: a page script makes a Blob
download on click, the model enables `read_download` with `more_tools` in the same turn, the
model's answers are slow (several seconds each, longer than the scratch sweep's interval), and
the data folder holds scratch folders of earlier tasks. Reading the file by its name returns
its text; the task is never ended `failed/internal`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from app.db import create_engine, session_factory
from app.db.migrate import upgrade
from app.settings import Settings
from bench.support import serve
from tests.e2e.conftest import _settings, wait_terminal
from tests.support.llm_server import Reply, ScriptedLLMServer, tool_reply
from tests.support.policies import find_ref, last_tool_results, latest_observation
from workers.process.embedded import build_app
from workers.process.housekeeping import run_housekeeping

NOTE_NAME = "Tom's travel notes.txt"
SECRET_LINE = "locker code: 4417"
PAGE = """<!doctype html><title>Notes</title><h1>Notes</h1>
<button id="save">Save the note</button>
<script>
document.getElementById('save').addEventListener('click', () => {
  const blob = new Blob([document.getElementById('save').dataset.text], {type: 'text/plain'});
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = "Tom's travel notes.txt";
  document.body.appendChild(a);
  a.click();
});
document.getElementById('save').dataset.text = 'Packing list\\nlocker code: 4417\\n';
</script>"""
SLOW_S = 2.5  # each model answer; the scratch sweep runs every 0.5 s below


async def page(request: Request) -> HTMLResponse:
    return HTMLResponse(PAGE)


def slow(reply: Reply) -> Reply:
    return Reply(
        content=reply.content,
        tool_calls=reply.tool_calls,
        finish_reason=reply.finish_reason,
        delay_s=SLOW_S,
    )


def blob_policy(request: dict[str, Any]) -> Reply:
    """Click + enable read_download in one turn; then read the file by name; then done."""
    results = " ".join(json.dumps(r) for r in last_tool_results(request))
    if SECRET_LINE in results:
        return slow(tool_reply(("done", {"answer": "4417", "success": True})))
    if "enabled" in results or "read_download" in results:
        return slow(tool_reply(("read_download", {"name": NOTE_NAME})))
    if last_tool_results(request):
        return tool_reply(("done", {"answer": f"no text: {results[:300]}", "success": False}))
    ref = find_ref(latest_observation(request), "button", "Save the note")
    return slow(tool_reply(("click", {"ref": ref}), ("more_tools", {"enable": ["read_download"]})))


@contextlib.contextmanager
def housekeeping(settings: Settings) -> Iterator[None]:
    """Another deployment's chores (reaper, pruner, scratch sweep of `root`:
    workers/process/housekeeping.py) on a thread."""
    loop = asyncio.new_event_loop()

    async def sweep() -> None:
        engine = create_engine(settings.effective_database_url)
        try:
            await run_housekeeping(session_factory(engine), settings, None)
        finally:
            await engine.dispose()

    job = loop.create_task(sweep())
    thread = threading.Thread(target=loop.run_until_complete, args=(job,), daemon=True)
    thread.start()
    try:
        yield
    finally:
        loop.call_soon_threadsafe(job.cancel)
        thread.join(10)


@pytest.fixture(scope="module")
def stack(chromium_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The service under test, and beside it another deployment on the same host that
    shares the scratch root (its own database, so it does not know this one's tasks)."""
    files = tmp_path_factory.mktemp("blob-files")
    for earlier in ("a" * 32, "b" * 32):  # scratch folders that earlier tasks left behind
        (files / earlier / "artifacts").mkdir(parents=True)
    site = Starlette(routes=[Route("/notes", page)])
    with ScriptedLLMServer(blob_policy) as llm, serve(site) as site_url:
        here, neighbour = (
            _settings(
                chromium_path,
                llm,
                tmp_path_factory.mktemp(name),
                task_files_dir=str(files),
                reaper_interval_s=0.5,
            )
            for name in ("blob-data", "neighbour-data")
        )
        upgrade(here.effective_database_url)
        upgrade(neighbour.effective_database_url)
        with serve(build_app(here)) as base_url, housekeeping(neighbour):
            yield f"{base_url} {site_url} {files}"


def test_a_page_made_blob_download_is_read_by_name_with_slow_answers(stack: str) -> None:
    base_url, site_url, files = stack.split()
    body = {
        "instruction": "save the note and tell me the locker code",
        "start_url": f"{site_url}/notes",
    }
    with httpx.Client(base_url=base_url, timeout=30.0) as client:
        created = client.post("/v1/tasks", json=body)
        assert created.status_code == 202, created.text
        task_id = created.json()["id"]
        final = wait_terminal(client, task_id, timeout=90.0)
    ending = {k: final.get(k) for k in ("status", "error", "error_detail", "answer")}
    assert final["error"] != "internal", ending
    assert final["status"] == "succeeded", ending
    assert final["result"]["answer"] == "4417"
    assert not (Path(files) / task_id).exists()  # the job removed its own folder
