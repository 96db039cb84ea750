"""An emoji-dense page run end to end through the service (issue 27 item 1).

Measured before: a button name cut between the two halves of an emoji reached the next
model request as a lone surrogate; the request could not be encoded and the task failed
with "LLM response is not a chat completion". Here the scripted model clicks such a button
and answers with the code; the run succeeds, every request the model server received was
well-formed UTF-8, and the stored events hold no lone surrogate.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route

from app.db.migrate import upgrade
from bench.support import serve
from tests.e2e.conftest import _settings, wait_terminal
from tests.support.llm_server import Reply, ScriptedLLMServer, tool_reply
from tests.support.policies import latest_observation
from workers.process.embedded import build_app

PAGE = Path(__file__).parents[1] / "integration/browser/pages/judging/emoji.html"
SURROGATE = re.compile("[\ud800-\udfff]")
BUTTON = re.compile(r"\[(\d+:\d+)\] button \"x{3}")


def page(_: Any) -> HTMLResponse:
    return HTMLResponse(PAGE.read_text("utf-8"))


def policy(request: dict[str, Any]) -> Reply:
    obs = latest_observation(request)
    if "pressed" not in obs:
        found = BUTTON.search(obs)
        assert found, obs[:500]
        return tool_reply(("click", {"ref": found.group(1)}))
    code = re.search(r"ROVER-\d+", obs)
    return tool_reply(("done", {"answer": code.group() if code else "none", "success": True}))


@pytest.fixture(scope="module")
def stack(chromium_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple]:
    data_dir: Path = tmp_path_factory.mktemp("emoji-data")
    site = Starlette(routes=[Route("/", page)])
    with ScriptedLLMServer(policy) as llm, serve(site) as site_url:
        settings = _settings(chromium_path, llm, data_dir, snapshot_max_tokens=40_000)
        upgrade(settings.effective_database_url)
        with serve(build_app(settings)) as base_url:
            yield base_url, site_url, llm


def test_an_emoji_dense_page_runs_to_the_answer(stack: tuple[str, str, Any]) -> None:
    base_url, site_url, llm = stack
    with httpx.Client(base_url=base_url, timeout=30.0) as client:
        body = {"instruction": "press a button, then read the code", "start_url": f"{site_url}/"}
        created = client.post("/v1/tasks", json=body)
        assert created.status_code == 202, created.text
        task_id = created.json()["id"]
        final = wait_terminal(client, task_id)
        steps = client.get(f"/v1/tasks/{task_id}/steps")
    assert final["status"] == "succeeded", final
    assert final["result"]["answer"] == "ROVER-42"
    assert llm.requests, "the model was never asked"
    for request in llm.requests:
        text = json.dumps(request, ensure_ascii=False)
        assert not SURROGATE.search(text)
    assert any("…[+" in json.dumps(r, ensure_ascii=False) for r in llm.requests)
    assert steps.status_code == 200, steps.text
    assert not SURROGATE.search(json.dumps(steps.json(), ensure_ascii=False))
