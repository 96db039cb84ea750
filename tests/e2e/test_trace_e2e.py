"""Run recordings end to end (issue 25): a task submitted with `record_trace: true` keeps a
Playwright `trace.zip` artifact. A typed secret appears nowhere in the zip (its raw bytes and
every file in it); the trace pauses while a secret is typed and says so, so no prefix of a
typed value is in it either (issue 32, item 4); a task with private regions is traced
without screenshots.
"""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from app.db.migrate import upgrade
from app.secret_forms import SecretForms
from bench.support import serve
from tests.e2e.conftest import _settings, wait_terminal
from tests.e2e.test_secrets_e2e import (
    CANARY,
    PASSWORD,
    LoginSite,
    canary_forms,
    login_policy,
)
from tests.support.llm_server import ScriptedLLMServer
from workers.browser.runtime.tracing import PAUSE_NOTE
from workers.process.embedded import build_app

INPUT_METHODS = {"fill", "type", "press", "insertText", "pressSequentially", "keyboardType"}


@pytest.fixture(scope="module")
def stack(
    chromium_path: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str, LoginSite]]:
    data_dir = tmp_path_factory.mktemp("trace-data")
    site = LoginSite()
    with ScriptedLLMServer(login_policy) as llm, serve(site.app()) as site_url:
        settings = _settings(chromium_path, llm, data_dir)
        upgrade(settings.effective_database_url)
        with serve(build_app(settings)) as base_url:
            yield base_url, site_url, site


def run_traced(base_url: str, body: dict[str, Any]) -> tuple[dict[str, Any], bytes]:
    with httpx.Client(base_url=base_url, timeout=30.0) as client:
        created = client.post("/v1/tasks", json={**body, "record_trace": True})
        assert created.status_code == 202, created.text
        assert created.json()["record_trace"] is True
        task_id = created.json()["id"]
        final = wait_terminal(client, task_id)
        listed = client.get(f"/v1/tasks/{task_id}/artifacts").json()
        (trace,) = [a for a in listed if a["kind"] == "trace"]
        assert trace["name"] == "trace.zip" and trace["content_type"] == "application/zip"
        data = client.get(f"/v1/tasks/{task_id}/artifacts/{trace['id']}").content
    assert len(data) == trace["size"]
    return final, data


def members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {name: z.read(name) for name in z.namelist()}


def calls(files: dict[str, bytes]) -> list[dict[str, Any]]:
    events = []
    for name, body in files.items():
        if name.endswith(".trace"):
            events += [json.loads(line) for line in body.decode().splitlines() if line.strip()]
    return events


def test_a_traced_login_keeps_the_typing_call_but_not_the_secret(
    stack: tuple[str, str, LoginSite],
) -> None:
    base_url, site_url, site = stack
    final, data = run_traced(
        base_url,
        {
            "instruction": "sign in with the password",
            "start_url": f"{site_url}/login",
            "secrets": {"pw": {"value": PASSWORD, "domains": ["127.0.0.1"]}},
            "approval_policy": "none",
        },
    )
    assert final["status"] == "succeeded", final
    assert PASSWORD in site.received  # the real value was typed while tracing
    files = members(data)
    assert any(n.endswith(".trace") for n in files)
    typed = [e for e in calls(files) if e.get("method") in INPUT_METHODS and "params" in e]
    assert all(
        e["params"].get(k) == "[redacted]"
        for e in typed
        for k in ("text", "value")
        if k in e["params"]
    )
    assert PAUSE_NOTE.encode() in b"".join(files.values())  # the pause says so
    assert PASSWORD.encode() not in data
    for name, body in files.items():
        assert PASSWORD.encode() not in body, name
        assert PASSWORD.lower().encode() not in body.lower(), name


def test_text_typed_as_secret_is_masked_in_the_trace(stack: tuple[str, str, LoginSite]) -> None:
    base_url, site_url, _ = stack
    final, data = run_traced(
        base_url,
        {
            "instruction": "enter the access code",
            "start_url": f"{site_url}/echo",
            "allow_scripts": True,
            "approval_policy": "none",
        },
    )
    assert final["status"] == "succeeded", final
    files = members(data)
    for form in canary_forms():
        assert form.encode() not in data
        for name, body in files.items():
            assert form.encode() not in body, (form, name)


def test_no_prefix_of_a_typed_secret_is_in_the_trace(stack: tuple[str, str, LoginSite]) -> None:
    """The echo page shows the field's value after every keystroke; the trace pauses around
    the secret typing, so none of those states (every prefix of the value, in every form the
    page writes and masking covers) is in the stored zip, and the zip says it paused."""
    base_url, site_url, _ = stack
    final, data = run_traced(
        base_url,
        {
            "instruction": "enter the access code",
            "start_url": f"{site_url}/echo",
            "allow_scripts": True,
            "approval_policy": "none",
        },
    )
    assert final["status"] == "succeeded", final
    files = members(data)
    text = "\n".join(body.decode("utf-8", "replace") for body in files.values())
    assert PAUSE_NOTE in text
    assert "You typed [secret]" in text  # the page after typing is traced, masked
    for n in range(3, len(CANARY)):
        prefix = CANARY[:n]
        assert f"You typed {prefix}" not in text, prefix
        found = SecretForms([prefix]).first(text.replace("[secret]", ""))
        assert found is None, (prefix, found)


def refused_login(site_url: str, **kw: Any) -> dict[str, Any]:
    """A short run: the secret may not be typed on this host, so the model gives up."""
    return {
        "instruction": "sign in with the password",
        "start_url": f"{site_url}/login",
        "secrets": {"pw": {"value": "Other-Pass-42", "domains": ["bank.example"]}},
        "approval_policy": "none",
        **kw,
    }


def screencast_frames(data: bytes) -> list[dict[str, Any]]:
    return [e for e in calls(members(data)) if e.get("type") == "screencast-frame"]


def test_private_regions_leave_screenshots_out_of_the_trace(
    stack: tuple[str, str, LoginSite],
) -> None:
    """Playwright cannot black out regions in its trace screenshots: none are recorded."""
    base_url, site_url, _ = stack
    final, data = run_traced(base_url, refused_login(site_url, private_regions=["h1"]))
    assert final["result"]["answer"] == "refused: secret_not_allowed", final
    assert screencast_frames(data) == []
    assert not [n for n in members(data) if n.endswith((".jpeg", ".jpg", ".png"))]


def test_trace_without_private_regions_has_screenshots(
    stack: tuple[str, str, LoginSite],
) -> None:
    """The guard of the test above: the same run without regions records screenshots."""
    base_url, site_url, _ = stack
    final, data = run_traced(base_url, refused_login(site_url))
    assert final["result"]["answer"] == "refused: secret_not_allowed", final
    assert screencast_frames(data)
