"""A start page that redirects at once is a page like any other (hardening issue, item 3);
a redirect to a refused address later leads the model back (issue 32, item 6).

Measured before: `<meta http-equiv="refresh" content="0;url=/index.html">` as the start page
failed the task `browser_error` ("Execution context was destroyed") with 0 model calls.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse
from starlette.routing import Route

from app.db.migrate import upgrade
from bench.support import serve
from tests.e2e.conftest import _settings, task_text, wait_terminal
from tests.support.llm_server import Reply, ScriptedLLMServer, tool_reply
from tests.support.policies import find_ref, latest_observation, latest_url
from workers.process.embedded import build_app

PAGES = {
    "/": '<!doctype html><meta http-equiv="refresh" content="0;url=/index.html"><p>moving</p>',
    "/js": "<!doctype html><script>location.replace('/index.html')</script><p>moving</p>",
    "/index.html": "<!doctype html><title>Home</title><h1>The code is HARBOUR-7</h1>",
    "/away": '<!doctype html><meta http-equiv="refresh" content="0;url=http://169.254.169.254/'
    'latest/"><p>moving</p>',
    "/links": '<!doctype html><title>Links</title><h1>Pick one</h1><a href="/hop">Leave here</a>'
    ' <a href="/soon">Leave later</a>',
    "/soon": '<!doctype html><meta http-equiv="refresh" content="0;url=http://169.254.169.254/'
    'latest/"><p>moving</p>',
}
METADATA = "http://169.254.169.254/latest/meta-data/"


def page(request: Request) -> HTMLResponse:
    return HTMLResponse(PAGES[request.url.path])


def hop(request: Request) -> RedirectResponse:
    return RedirectResponse(METADATA, status_code=302)


def policy(request: dict[str, Any]) -> Reply:
    obs = latest_observation(request)
    link = next((name for name in ("Leave here", "Leave later") if name in task_text(request)), "")
    if link and "was refused" in obs:  # where the model is now, as the observation says
        back = "back on" in obs and "/links" in latest_url(request)
        back = back and "chrome-error" not in json.dumps(request["messages"])
        return tool_reply(("done", {"answer": f"refused, back={back}", "success": False}))
    if link:
        return tool_reply(("click", {"ref": find_ref(obs, "link", link)}))
    if "was refused" in obs:
        return tool_reply(
            ("done", {"answer": "the page leads to a refused address", "success": False})
        )
    answer = "HARBOUR-7" if "HARBOUR-7" in obs else "not seen"
    return tool_reply(("done", {"answer": answer, "success": answer != "not seen"}))


@pytest.fixture(scope="module")
def stack(chromium_path: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple]:
    data_dir: Path = tmp_path_factory.mktemp("redirect-data")
    site = Starlette(routes=[Route(p, page) for p in PAGES] + [Route("/hop", hop)])
    with ScriptedLLMServer(policy) as llm, serve(site) as site_url:
        settings = _settings(chromium_path, llm, data_dir)
        upgrade(settings.effective_database_url)
        with serve(build_app(settings)) as base_url:
            yield base_url, site_url, llm


def run_to_end(stack: tuple, path: str, instruction: str = "read the code") -> dict[str, Any]:
    """Submit `instruction` at `path` of the site; the finished task."""
    base_url, site_url, _ = stack
    with httpx.Client(base_url=base_url, timeout=30.0) as client:
        body = {"instruction": instruction, "start_url": f"{site_url}{path}"}
        created = client.post("/v1/tasks", json=body)
        assert created.status_code == 202, created.text
        return dict(wait_terminal(client, created.json()["id"]))


@pytest.mark.parametrize("path", ["/", "/js"])
@pytest.mark.parametrize("attempt", [1, 2])
def test_a_start_page_that_redirects_at_once_runs_the_task(
    stack: tuple, path: str, attempt: int
) -> None:
    final = run_to_end(stack, path)
    assert final["status"] == "succeeded", final
    assert final["result"]["answer"] == "HARBOUR-7"
    assert final["usage"]["llm_calls"] >= 1


def test_a_start_page_that_redirects_to_a_refused_address_tells_the_model(
    stack: tuple,
) -> None:
    """Not a browser error with no model call: the model is told what was refused."""
    final = run_to_end(stack, "/away")
    assert final["error"] != "browser_error", final
    assert final["usage"]["llm_calls"] >= 1, final
    assert final["result"]["answer"] == "the page leads to a refused address", final


@pytest.mark.parametrize("link", ["Leave here", "Leave later"])
def test_a_refused_redirect_after_the_start_leads_the_model_back(stack: tuple, link: str) -> None:
    """Issue 32 item 6: the start page loaded, then a link answers 302 (or a refresh) to a
    refused address. The model is told the target was refused and is back on the last page
    that loaded (the URL it sees); nothing it reads names Chromium's error page (the click's
    own result said "now at chrome-error://chromewebdata/" before)."""
    final = run_to_end(stack, "/links", f"click {link}")
    assert final["result"]["answer"] == "refused, back=True", final


def test_a_task_runs_in_its_time_zone_and_a_bad_one_is_refused(stack: tuple) -> None:
    """Issue 22: `time_zone` on the task API (IANA, validated); the model is told it."""
    base_url, site_url, llm = stack
    with httpx.Client(base_url=base_url, timeout=30.0) as client:
        body = {"instruction": "read the code", "start_url": f"{site_url}/index.html"}
        refused = client.post("/v1/tasks", json={**body, "time_zone": "Mars/Olympus"})
        assert refused.status_code == 422 and "time_zone" in refused.text, refused.text
        before = len(llm.requests)
        created = client.post("/v1/tasks", json={**body, "time_zone": "Europe/Berlin"})
        assert created.status_code == 202, created.text
        final = wait_terminal(client, created.json()["id"])
        plain = client.post("/v1/tasks", json=body).json()
    assert final["status"] == "succeeded" and final["time_zone"] == "Europe/Berlin"
    assert plain["time_zone"] == "UTC"  # the service's WEBAGENT_DEFAULT_TIME_ZONE
    assert any("Time zone: Europe/Berlin" in str(r) for r in llm.requests[before:])
