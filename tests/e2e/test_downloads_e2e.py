"""Downloads become task artifacts end to end: a scripted model clicks a download link on a
local page and finishes at once; the file is listed on the task (GET .../artifacts) and
GET .../artifacts/{id} returns the very bytes, served as an attachment. Another tenant's
view of the task is a 404 (tests/unit/api covers tenancy of the task routes in general).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Route

from app.db.migrate import upgrade
from bench.support import serve
from tests.e2e.conftest import _settings, wait_terminal
from tests.support.llm_server import Reply, ScriptedLLMServer, tool_reply
from tests.support.policies import find_ref, last_tool_results, latest_observation
from workers.process.embedded import build_app

CONTENT = b"region,total\nnorth,17\nsouth,\xe2\x82\xac42\n"
PAGE = """<!doctype html><title>Reports</title><h1>Reports</h1>
<a href="/report.csv">Download the report</a>"""


async def page(request: Request) -> HTMLResponse:
    return HTMLResponse(PAGE)


async def report(request: Request) -> Response:
    disposition = 'attachment; filename="q3-report.csv"'
    return Response(CONTENT, media_type="text/csv", headers={"Content-Disposition": disposition})


def download_policy(request: dict[str, Any]) -> Reply:
    """Click the download link, then finish right away (the file is still being saved)."""
    if last_tool_results(request):
        return tool_reply(("done", {"answer": "downloaded", "success": True}))
    ref = find_ref(latest_observation(request), "link", "Download the report")
    return tool_reply(("click", {"ref": ref}))


@pytest.fixture(scope="module")
def stack(chromium_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data_dir = tmp_path_factory.mktemp("downloads-data")
    site = Starlette(routes=[Route("/reports", page), Route("/report.csv", report)])
    with ScriptedLLMServer(download_policy) as llm, serve(site) as site_url:
        settings = _settings(chromium_path, llm, data_dir)
        upgrade(settings.effective_database_url)
        with serve(build_app(settings)) as base_url:
            yield f"{base_url} {site_url}"


def test_a_download_is_listed_on_the_task_with_its_bytes(stack: str) -> None:
    base_url, site_url = stack.split()
    body = {"instruction": "download the report", "start_url": f"{site_url}/reports"}
    with httpx.Client(base_url=base_url, timeout=30.0) as client:
        created = client.post("/v1/tasks", json=body)
        assert created.status_code == 202, created.text
        task_id = created.json()["id"]
        final = wait_terminal(client, task_id)
        assert final["status"] == "succeeded", final
        listed = client.get(f"/v1/tasks/{task_id}/artifacts")
        assert listed.status_code == 200, listed.text
        downloads = [a for a in listed.json() if a["kind"] == "download"]
        assert downloads == [
            {
                "id": downloads[0]["id"],
                "kind": "download",
                "name": "q3-report.csv",
                "content_type": "text/csv",
                "size": len(CONTENT),
                "step": 1,
            }
        ]
        got = client.get(f"/v1/tasks/{task_id}/artifacts/{downloads[0]['id']}")
        assert got.status_code == 200
        assert got.content == CONTENT
        assert got.headers["content-type"].startswith("text/csv")
        assert got.headers["content-disposition"] == "attachment; filename*=UTF-8''q3-report.csv"
        assert got.headers["x-content-type-options"] == "nosniff"
        missing = client.get(f"/v1/tasks/{task_id}/artifacts/{'0' * 32}")
        assert missing.status_code == 404
        assert client.get(f"/v1/tasks/{'0' * 32}/artifacts").status_code == 404
