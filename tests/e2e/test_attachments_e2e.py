"""Task attachments and the script opt-in end to end (seed 001 App. A.5, seed 000 App. A):
a task submitted over HTTP with `attachments`, a scripted model that uploads the file on a
local page; the page receives the very bytes. The same model then tries evaluate_script,
which is offered and runs only on a task submitted with `allow_scripts`.
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse
from starlette.routing import Route

from app.db.migrate import upgrade
from bench.support import serve
from tests.e2e.conftest import _settings, wait_terminal
from tests.support.llm_server import Reply, ScriptedLLMServer, tool_reply
from tests.support.policies import last_tool_results, latest_observation
from workers.process.embedded import build_app

CONTENT = b"%PDF-1.4 resume of Ada Lovelace \x00\x01\x02\xff"
PAGE = """<!doctype html><title>Apply</title><h1>Apply</h1>
<label for="cv">Resume</label> <input id="cv" type="file">
<p id="status"></p>
<script>
document.getElementById('cv').addEventListener('change', async (e) => {
  const file = e.target.files[0];
  await fetch('/received', { method: 'POST', headers: { 'x-name': file.name },
    body: await file.arrayBuffer() });
  document.getElementById('status').textContent = 'Uploaded ' + file.name;
});
</script>"""


class UploadSite:
    def __init__(self) -> None:
        self.received: list[tuple[str, bytes]] = []

    async def page(self, request: Request) -> HTMLResponse:
        return HTMLResponse(PAGE)

    async def received_file(self, request: Request) -> PlainTextResponse:
        self.received.append((request.headers.get("x-name", ""), await request.body()))
        return PlainTextResponse("ok")

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/apply", self.page),
                Route("/received", self.received_file, methods=["POST"]),
            ]
        )


def upload_policy(request: dict[str, Any]) -> Reply:
    """Upload cv.pdf, then run a script, then report what the script tool said."""
    obs = latest_observation(request)
    results = last_tool_results(request)
    calls = json.dumps([m.get("tool_calls") for m in request.get("messages", [])])
    if '"evaluate_script"' in calls:
        outcome = results[0] if results else {}
        answer = str(outcome.get("error") or outcome.get("data", {}).get("result"))
        return tool_reply(("done", {"answer": answer, "success": True}))
    if "Uploaded cv.pdf" in obs:
        return tool_reply(("evaluate_script", {"script": "document.title"}))
    match = re.search(r"\[(\d+:\d+)\][^\n]*Resume", obs)
    assert match, obs
    return tool_reply(("upload_file", {"ref": match[1], "files": ["cv.pdf"]}))


@pytest.fixture(scope="module")
def stack(
    chromium_path: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str, ScriptedLLMServer, UploadSite]]:
    data_dir = tmp_path_factory.mktemp("attachments-data")
    site = UploadSite()
    with ScriptedLLMServer(upload_policy) as llm, serve(site.app()) as site_url:
        settings = _settings(chromium_path, llm, data_dir, attachments_max_bytes=1000)
        upgrade(settings.effective_database_url)
        with serve(build_app(settings)) as base_url:
            yield base_url, site_url, llm, site


def _body(site_url: str, **extra: Any) -> dict[str, Any]:
    attachment = {
        "name": "cv.pdf",
        "content_base64": base64.b64encode(CONTENT).decode(),
        "media_type": "application/pdf",
    }
    return {
        "instruction": "upload my resume",
        "start_url": f"{site_url}/apply",
        "attachments": [attachment],
        **extra,
    }


def _offered(llm: ScriptedLLMServer, since: int) -> set[str]:
    return {
        t["function"]["name"]
        for r in llm.requests[since:]
        for t in r.get("tools") or ()
        if "function" in t
    }


@pytest.mark.parametrize("allow_scripts", [False, True])
def test_attachment_reaches_the_page_and_scripts_follow_the_opt_in(
    stack: tuple[str, str, ScriptedLLMServer, UploadSite], allow_scripts: bool
) -> None:
    base_url, site_url, llm, site = stack
    site.received.clear()
    since = len(llm.requests)
    with httpx.Client(base_url=base_url, timeout=30.0) as client:
        # page script asks a person first under the default approval policy; nobody answers here
        policy = {"approval_policy": "none"} if allow_scripts else {}
        body = _body(site_url, allow_scripts=allow_scripts, **policy)
        created = client.post("/v1/tasks", json=body)
        assert created.status_code == 202, created.text
        assert created.json()["attachments"] == ["cv.pdf"]
        assert created.json()["allow_scripts"] is allow_scripts
        final = wait_terminal(client, created.json()["id"])
    assert final["status"] == "succeeded", final
    assert site.received == [("cv.pdf", CONTENT)]  # the page got the very bytes
    offered = _offered(llm, since)
    assert "upload_file" in offered
    # the model is told the names it may upload
    assert "upload_file takes these names): 'cv.pdf'" in json.dumps(llm.requests[since])
    if allow_scripts:
        assert "evaluate_script" in offered
        assert '"Apply"' in final["result"]["answer"]  # the script's JSON result
    else:  # not offered, and refused when called anyway
        assert "evaluate_script" not in offered
        assert final["result"]["answer"] == "scripts_not_allowed"


def test_attachments_over_the_size_cap_or_with_paths_are_refused(
    stack: tuple[str, str, ScriptedLLMServer, UploadSite],
) -> None:
    base_url, site_url, _, _ = stack
    big = {"name": "big.bin", "content_base64": base64.b64encode(b"x" * 1001).decode()}
    with httpx.Client(base_url=base_url, timeout=30.0) as client:
        too_big = client.post("/v1/tasks", json={**_body(site_url), "attachments": [big]})
        assert too_big.status_code == 422
        assert "the limit is 1000" in too_big.text and "ATTACHMENTS_MAX_BYTES" in too_big.text
        pathy = {**big, "name": "../etc/passwd", "content_base64": "eA=="}
        bad_name = client.post("/v1/tasks", json={**_body(site_url), "attachments": [pathy]})
        assert bad_name.status_code == 422 and "plain file names" in bad_name.text
        junk = {**big, "content_base64": "not base64!"}
        bad_b64 = client.post("/v1/tasks", json={**_body(site_url), "attachments": [junk]})
        assert bad_b64.status_code == 422 and "not valid base64" in bad_b64.text
