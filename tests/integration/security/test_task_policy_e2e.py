"""Task policy end to end over HTTP (embedded service, real Chromium, scripted model):
private regions (seed 003 §9.4) never reach a model request and are black in the step
screenshots; forbid_login (seed 004 App. C.5) fails the task; a task profile limits the
tools the model is offered (seed 003 §9.3)."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from PIL import Image
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from app.db.migrate import upgrade
from bench.support import serve
from tests.e2e.conftest import _settings, wait_terminal
from tests.support.llm_server import Reply, ScriptedLLMServer, tool_reply
from tests.support.policies import latest_observation
from workers.process.embedded import build_app

pytestmark = pytest.mark.browser

CANARY = "Inbox-Canary-9034"
BOX = (100, 150, 400, 150)  # left, top, width, height of the inbox on the page
DASHBOARD = f"""<!doctype html><title>Dashboard</title><h1>Dashboard</h1>
<p>Order 1234 shipped on Monday.</p>
<section id="inbox" style="position:fixed;left:{BOX[0]}px;top:{BOX[1]}px;width:{BOX[2]}px;
height:{BOX[3]}px;background:#ffd000;color:#000">Message from Alice: {CANARY}</section>"""
LOGIN = """<!doctype html><title>Sign in</title><h1>Sign in</h1><form method="post">
<label>Email <input name="email"></label><label>Password <input name="pw" type="password">
</label><button>Log in</button></form>"""


def site() -> Starlette:
    async def dashboard(request: Request) -> HTMLResponse:
        return HTMLResponse(DASHBOARD)

    async def login(request: Request) -> HTMLResponse:
        return HTMLResponse(LOGIN)

    return Starlette(routes=[Route("/dashboard", dashboard), Route("/login", login)])


def policy(request: dict[str, Any]) -> Reply:
    """Report what the page says about the order."""
    shown = "Order 1234 shipped" in latest_observation(request)
    return tool_reply(("done", {"answer": "shipped" if shown else "unknown", "success": shown}))


@pytest.fixture(scope="module")
def stack(
    chromium_path: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[httpx.Client, str, ScriptedLLMServer]]:
    data_dir: Path = tmp_path_factory.mktemp("policy-data")
    with ScriptedLLMServer(policy) as llm, serve(site()) as site_url:
        settings = _settings(chromium_path, llm, data_dir)
        upgrade(settings.effective_database_url)
        with (
            serve(build_app(settings)) as base_url,
            httpx.Client(base_url=base_url, timeout=30.0) as client,
        ):
            yield client, site_url, llm


def run(client: httpx.Client, body: dict[str, Any]) -> dict[str, Any]:
    created = client.post("/v1/tasks", json={"approval_policy": "none", **body})
    assert created.status_code == 202, created.text
    return wait_terminal(client, created.json()["id"])


def box_brightness(jpeg: bytes) -> float:
    """Mean brightness (0-255) inside the inbox box, 10 px in from its edges."""
    image = Image.open(io.BytesIO(jpeg)).convert("L")
    left, top, width, height = BOX
    pixels = [
        image.getpixel((x, y))
        for x in range(left + 10, left + width - 10, 7)
        for y in range(top + 10, top + height - 10, 7)
    ]
    return sum(pixels) / len(pixels)  # type: ignore[arg-type]


def test_a_private_region_never_reaches_the_model_and_is_black_in_screenshots(
    stack: tuple[httpx.Client, str, ScriptedLLMServer],
) -> None:
    client, site_url, llm = stack
    shots = {}
    for regions in ([], ["#inbox"]):  # without, as the control; then with the region
        before = len(llm.requests)
        task = {"instruction": "Has order 1234 shipped?", "start_url": f"{site_url}/dashboard"}
        final = run(client, {**task, "private_regions": regions})
        assert final["status"] == "succeeded", final
        sent = json.dumps(llm.requests[before:])
        assert "Order 1234 shipped" in sent  # the rest of the page reached the model
        assert (CANARY in sent) is not regions
        shot = client.get(f"/v1/tasks/{final['id']}/screenshots/1")
        assert shot.status_code == 200
        shots[bool(regions)] = box_brightness(shot.content)
    assert shots[False] > 150  # the yellow inbox is there without the region
    assert shots[True] < 25  # and black with it


def test_forbid_login_fails_the_task_on_a_login_page(
    stack: tuple[httpx.Client, str, ScriptedLLMServer],
) -> None:
    client, site_url, llm = stack
    before = len(llm.requests)
    body = {"instruction": "Check my orders", "start_url": f"{site_url}/login"}
    final = run(client, {**body, "forbid_login": True})
    assert (final["status"], final["error"]) == ("failed", "login_prohibited"), final
    assert "Sign in" not in json.dumps(llm.requests[before:])  # the model never saw it


def test_an_assistant_task_is_not_offered_interaction_tools(
    stack: tuple[httpx.Client, str, ScriptedLLMServer],
) -> None:
    client, site_url, llm = stack
    before = len(llm.requests)
    body = {"instruction": "Has order 1234 shipped?", "start_url": f"{site_url}/dashboard"}
    final = run(client, {**body, "task_profile": "assistant", "private_regions": ["#inbox"]})
    assert final["status"] == "succeeded", final
    offered = {
        tool["function"]["name"] for r in llm.requests[before:] for tool in r.get("tools") or ()
    }
    assert "read_text" in offered and "done" in offered
    assert not offered & {"click", "type", "press_key", "select_option", "tabs"}
