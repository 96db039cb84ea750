"""A typed secret never shows in a stored image (issue 32, item 3), end to end over HTTP.

The canary page (tests/integration/browser/pages/secret_echo.html) renders what is typed in
64 px type: in a text field (type=text) the page re-styles on every keystroke, so the value
stays visible, in a paragraph echoing it, and URL-encoded in a shadow root; a password input
holds a value. A traced task types its secret there and saves a screenshot. There is no OCR:
every stored image (step screenshots, each frame of trace.zip) is
checked in pixels: each box that shows the value is uniform (empty before the typing, black
after), the password input is black, and no stored byte holds the canary in any form.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

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
from tests.support.policies import find_ref, latest_observation
from workers.process.embedded import build_app

CANARY = "QX7!Canary@9090"
PAGE = Path(__file__).parents[1] / "integration" / "browser" / "pages" / "secret_echo.html"
VIEW_WIDTH = 1280  # Settings.viewport_width
# CSS boxes of the page (its fixed layout), 4 px inside each element's edges
SHOWN = {"field": (24, 24, 712, 106), "echo": (24, 144, 916, 226), "shadow": (24, 264, 916, 346)}
PASSWORD = (24, 384, 516, 466)
PUBLIC = (24, 504, 916, 586)


def called(request: dict[str, Any]) -> set[str]:
    """The tools the model called so far in this run (replayed calls and the ledger's)."""
    messages = request.get("messages", [])
    ledger = json.dumps(messages)
    replayed = {
        call["function"]["name"] for message in messages for call in message.get("tool_calls") or []
    }
    return replayed | {name for name in ("type", "screenshot") if f": {name}(" in ledger}


def canary_policy(request: dict[str, Any]) -> Reply:
    """Type the secret into the access code field, save a screenshot, finish."""
    done = called(request)
    if "type" not in done:
        ref = find_ref(latest_observation(request), "textbox", "Access code")
        return tool_reply(("type", {"ref": ref, "text": "<secret:code>"}))
    if "screenshot" not in done:
        return tool_reply(("screenshot", {}))
    return tool_reply(("done", {"answer": "typed the code", "success": True}))


async def canary_page(request: Request) -> HTMLResponse:
    return HTMLResponse(PAGE.read_text())


@pytest.fixture(scope="module")
def stack(
    chromium_path: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str]]:
    data_dir = tmp_path_factory.mktemp("secret-pixels")
    site = Starlette(routes=[Route("/code", canary_page)])
    with ScriptedLLMServer(canary_policy) as llm, serve(site) as site_url:
        settings = _settings(chromium_path, llm, data_dir)
        upgrade(settings.effective_database_url)
        with serve(build_app(settings)) as base_url:
            yield base_url, site_url


def stored(base_url: str, site_url: str) -> tuple[dict[str, Any], dict[str, bytes]]:
    """Run the task; its final state and every stored artifact by "kind/step/name"."""
    body = {
        "instruction": "enter the access code",
        "start_url": f"{site_url}/code",
        "secrets": {"code": {"value": CANARY, "domains": ["127.0.0.1"]}},
        "record_trace": True,
        "approval_policy": "none",
    }
    with httpx.Client(base_url=base_url, timeout=30.0) as client:
        created = client.post("/v1/tasks", json=body)
        assert created.status_code == 202, created.text
        task_id = created.json()["id"]
        final = wait_terminal(client, task_id)
        files = {
            f"{a['kind']}/{a['step']}/{a['name']}": client.get(
                f"/v1/tasks/{task_id}/artifacts/{a['id']}"
            ).content
            for a in client.get(f"/v1/tasks/{task_id}/artifacts").json()
        }
    return final, files


def brightness(img: Image.Image, box: tuple[int, int, int, int]) -> list[int]:
    scale = img.width / VIEW_WIDTH
    x0, y0, x1, y1 = (round(v * scale) for v in box)
    rgb = img.convert("RGB")
    return [max(rgb.getpixel((x, y))) for x in range(x0, x1, 3) for y in range(y0, y1, 3)]  # type: ignore[arg-type]


def check_image(name: str, data: bytes, *, typed: bool, whole: bool = True) -> None:
    """Each box showing the value is uniform (black once `typed`); with `whole` (an image
    taken after a paint: not every trace frame is), the password input is black too and
    the public text shows."""
    img = Image.open(io.BytesIO(data))
    for where, box in SHOWN.items():
        inside = brightness(img, box)
        assert max(inside) - min(inside) < 48, (name, where, "shows text")
        if typed:
            assert max(inside) < 48, (name, where, "not black after the typing")
    if whole:
        assert max(brightness(img, PASSWORD)) < 48, (name, "the password input is not black")
        public = brightness(img, PUBLIC)
        assert min(public) < 100 < max(public), (name, "the public text is not shown as it is")


def trace_frames(trace: bytes) -> list[tuple[str, bytes]]:
    """(name, JPEG) of every screencast frame in the trace (`<chunk>-screencast/<page>-<ms>
    .jpeg`), oldest first."""
    with zipfile.ZipFile(io.BytesIO(trace)) as z:
        names = [n for n in z.namelist() if n.endswith((".jpeg", ".jpg", ".png"))]
        names.sort(key=lambda n: int(n.rsplit("-", 1)[1].split(".")[0]))
        return [(n, z.read(n)) for n in names]


def test_no_stored_image_shows_the_typed_secret(stack: tuple[str, str]) -> None:
    final, files = stored(*stack)
    assert final["status"] == "succeeded", final
    forms = [CANARY, quote(CANARY, safe="-_.!~*'()"), CANARY.lower()]
    for name, data in files.items():
        for form in forms:
            assert form.encode() not in data, (name, form)
    steps = sorted(
        ((n, d) for n, d in files.items() if n.startswith("screenshot/")),
        key=lambda item: int(item[0].split("/")[1]),
    )
    assert len(steps) >= 2, list(files)
    for name, data in steps:
        check_image(name, data, typed=False)
    check_image(steps[-1][0], steps[-1][1], typed=True)  # the step after the typing
    (trace,) = [data for name, data in files.items() if name.startswith("trace/")]
    frames = trace_frames(trace)
    assert frames, "the trace holds frames"
    for name, jpeg in frames:
        check_image(f"trace frame {name}", jpeg, typed=False, whole=False)
    check_image("last trace frame", frames[-1][1], typed=True, whole=False)
