"""Task secrets end to end (issue 12, "Secrets never reach the model"): a task submitted over
HTTP with `secrets`, a scripted model that types `<secret:pw>` into a password field of a
local login page. The site receives the real value; no model request, event row, ledger row,
log line, API response or database table holds it. A secret scoped to another domain is
refused with `secret_not_allowed`. The page's echoes of a typed value in the encodings
browsers produce (encodeURIComponent, char codes, spaced hex, zero-width joins, padded
entities) and a GET form's URL carrying a password (WHATWG form encoding) are masked in
every read-back (issue 32, item 3).
"""

from __future__ import annotations

import base64
import json
import logging
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote

import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from app.db.migrate import upgrade
from bench.support import serve
from tests.e2e.conftest import _settings, wait_terminal
from tests.support.llm_server import Reply, ScriptedLLMServer, tool_reply
from tests.support.policies import last_tool_results, latest_observation
from workers.process.embedded import build_app

PASSWORD = "Zq7-hunter2-Secret!"
LOGIN = """<!doctype html><title>Sign in</title><form method="post" action="/login">
<label>Username <input name="user" type="text"></label>
<label>Password <input name="password" type="password"></label>
<button type="submit">Log in</button></form>"""
GET_PASSWORD = "Vault*Canary@5150~x"  # WHATWG form encoding: Vault*Canary%405150%7Ex
GET_LOGIN = LOGIN.replace('method="post" action="/login"', 'method="get" action="/signed"')


CANARY = "Hunter2!CANARY@77"
ECHO = """<!doctype html><title>Code</title><label>Access code <input id=c type=text></label>
<p id=echo></p><p id=rev></p><p id=spaced></p><p id=b64></p><p id=uri></p><p id=codes></p>
<p id=hex></p><p id=zw></p><p id=ent></p><script>
c.addEventListener('input', () => {
  const v = c.value, chars = v.split('');
  echo.textContent = 'You typed ' + v;
  rev.textContent = 'Backwards: ' + chars.slice().reverse().join('');
  spaced.textContent = 'Spelled: ' + chars.join(' ');
  b64.textContent = 'Encoded: ' + btoa('user:' + v);
  uri.textContent = 'Link: ?code=' + encodeURIComponent(v);
  codes.textContent = 'Codes: ' + chars.map(ch => ch.charCodeAt(0)).join(',');
  hex.textContent = 'Hex: ' + chars.map(ch => ch.charCodeAt(0).toString(16)).join(' ');
  zw.textContent = 'Joined: ' + chars.join('\\u200b');
  const ref = ch => '&#' + String(ch.charCodeAt(0)).padStart(4, '0') + ';';
  ent.textContent = 'Refs: ' + chars.map(ref).join('');
});</script>"""
SCRIPT = "() => document.getElementById('c').value.split('').join('-')"


def canary_forms() -> list[str]:
    """The copies of the canary the echo page and the script make."""
    return [
        CANARY,
        CANARY[::-1],
        " ".join(CANARY),
        "-".join(CANARY),
        base64.b64encode(f"user:{CANARY}".encode()).decode(),
        quote(CANARY, safe="-_.!~*'()"),  # encodeURIComponent
        ",".join(str(ord(c)) for c in CANARY),
        " ".join(f"{ord(c):x}" for c in CANARY),
        "\u200b".join(CANARY),
        "".join(f"&#{ord(c):04d};" for c in CANARY),
    ]


class LoginSite:
    def __init__(self) -> None:
        self.received: list[str] = []

    async def page(self, request: Request) -> HTMLResponse:
        if request.method == "POST":
            form = parse_qs((await request.body()).decode())
            self.received.extend(form.get("password", []))
            return HTMLResponse("<!doctype html><title>Welcome</title><h1>Signed in</h1>")
        return HTMLResponse(LOGIN)

    async def echo(self, request: Request) -> HTMLResponse:
        return HTMLResponse(ECHO)

    async def get_login(self, request: Request) -> HTMLResponse:
        return HTMLResponse(GET_LOGIN)

    async def signed(self, request: Request) -> HTMLResponse:
        self.received.extend(request.query_params.getlist("password"))
        return HTMLResponse("<!doctype html><title>Welcome</title><h1>Signed in</h1>")

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/login", self.page, methods=["GET", "POST"]),
                Route("/echo", self.echo),
                Route("/get-login", self.get_login),
                Route("/signed", self.signed),
            ]
        )


def ref_of(observation: str, name: str) -> str:
    match = re.search(rf"\[(\d+:\d+)\][^\n]*{name}", observation)
    assert match, f"no {name!r} in:\n{observation}"
    return match[1]


def login_policy(request: dict[str, Any]) -> Reply:
    """Type the secret token, press Log in, report; a refused secret ends the run."""
    obs = latest_observation(request)
    if "Access code" in obs:
        return literal_policy(request, obs)
    errors = [r.get("error") for r in last_tool_results(request) if r.get("error")]
    if errors:
        return tool_reply(("done", {"answer": f"refused: {errors[0]}", "success": False}))
    if "Signed in" in obs:
        return tool_reply(("done", {"answer": "signed in", "success": True}))
    typed = any(
        '"name": "type"' in json.dumps(m.get("tool_calls") or "") or "type(ref=" in str(m)
        for m in request.get("messages", [])
    )
    if not typed:
        return tool_reply(("type", {"ref": ref_of(obs, "Password"), "text": "<secret:pw>"}))
    return tool_reply(("click", {"ref": ref_of(obs, "Log in")}))


def literal_policy(request: dict[str, Any], obs: str) -> Reply:
    """Type a literal value marked `secret=true`, run a script that spells it out (refused),
    then finish."""
    results = last_tool_results(request)
    if any(r.get("error") == "secret_in_result" for r in results):
        return tool_reply(("done", {"answer": "typed", "success": True}))
    if results:
        return tool_reply(("evaluate_script", {"script": SCRIPT}))
    ref = ref_of(obs, "Access code")
    return tool_reply(("type", {"ref": ref, "text": CANARY, "secret": True}))


@pytest.fixture(scope="module")
def stack(
    chromium_path: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str, ScriptedLLMServer, LoginSite, Path]]:
    data_dir = tmp_path_factory.mktemp("secrets-data")
    site = LoginSite()
    with ScriptedLLMServer(login_policy) as llm, serve(site.app()) as site_url:
        settings = _settings(chromium_path, llm, data_dir)
        upgrade(settings.effective_database_url)
        with serve(build_app(settings)) as base_url:
            yield base_url, site_url, llm, site, data_dir


def dump(data_dir: Path) -> str:
    with sqlite3.connect(data_dir / "webagent.db") as db:
        return "\n".join(db.iterdump())


def test_secret_reaches_the_site_and_nothing_else(
    stack: tuple[str, str, ScriptedLLMServer, LoginSite, Path], caplog: pytest.LogCaptureFixture
) -> None:
    import httpx

    base_url, site_url, llm, site, data_dir = stack
    caplog.set_level(logging.DEBUG)
    with httpx.Client(base_url=base_url, timeout=30.0) as client:
        body = {
            "instruction": "sign in with the password",
            "start_url": f"{site_url}/login",
            "secrets": {"pw": {"value": PASSWORD, "domains": ["127.0.0.1"]}},
            "approval_policy": "none",  # password entry would wait for a person
        }
        created = client.post("/v1/tasks", json=body)
        assert created.status_code == 202, created.text
        assert created.json()["secrets"] == ["pw"]
        task_id = created.json()["id"]
        final = wait_terminal(client, task_id)
        shown = (
            client.get(f"/v1/tasks/{task_id}").text + client.get(f"/v1/tasks/{task_id}/steps").text
        )
    assert final["status"] == "succeeded", final
    assert site.received == [PASSWORD]  # the tool layer typed the real value
    requests = json.dumps(llm.requests)
    assert "<secret:pw>" in requests  # the model was told the name, and used it
    assert PASSWORD not in requests
    assert PASSWORD not in shown and '"pw"' in shown
    stored = dump(data_dir)
    assert task_id in stored and "task.started" in stored and PASSWORD not in stored
    assert PASSWORD not in caplog.text
    key_file = data_dir / "secrets.key"
    assert key_file.stat().st_mode & 0o777 == 0o600


def test_secret_scoped_to_another_domain_is_refused(
    stack: tuple[str, str, ScriptedLLMServer, LoginSite, Path],
) -> None:
    import httpx

    base_url, site_url, _, site, data_dir = stack
    before = list(site.received)
    with httpx.Client(base_url=base_url, timeout=30.0) as client:
        body = {
            "instruction": "sign in with the password",
            "start_url": f"{site_url}/login",
            "secrets": {"pw": {"value": "Other-Pass-42", "domains": ["bank.example"]}},
            "approval_policy": "none",  # password entry would wait for a person
        }
        created = client.post("/v1/tasks", json=body)
        assert created.status_code == 202, created.text
        final = wait_terminal(client, created.json()["id"])
    assert final["result"]["answer"] == "refused: secret_not_allowed", final
    assert site.received == before
    assert "Other-Pass-42" not in dump(data_dir)


def test_text_typed_with_secret_true_is_masked_in_every_read_back(
    stack: tuple[str, str, ScriptedLLMServer, LoginSite, Path], caplog: pytest.LogCaptureFixture
) -> None:
    """The model marks literal text secret; the field's value, the page's echo of it and the
    tool result's account of the field all read back as [secret] (hardening issue, item 1)."""
    import httpx

    base_url, site_url, llm, _, data_dir = stack
    caplog.set_level(logging.DEBUG)
    before = len(llm.requests)
    with httpx.Client(base_url=base_url, timeout=30.0) as client:
        body = {
            "instruction": "enter the access code",
            "start_url": f"{site_url}/echo",
            "allow_scripts": True,
            "approval_policy": "none",  # a script would wait for a person
        }
        created = client.post("/v1/tasks", json=body)
        assert created.status_code == 202, created.text
        task_id = created.json()["id"]
        final = wait_terminal(client, task_id)
        shown = "".join(
            client.get(f"/v1/tasks/{task_id}{tail}").text
            for tail in ("", "/steps", "/ledger", "/events")
        )
    assert final["status"] == "succeeded", final
    requests = json.dumps(llm.requests[before:], ensure_ascii=False)
    assert len(llm.requests) - before >= 3  # the page after typing, the refused script
    assert "[secret]" in requests  # the read-backs are there, masked
    assert "secret_in_result" in requests
    stored = dump(data_dir)
    for form in canary_forms():  # the page's echoes and the script's copy, in every read-back
        assert form not in requests and form not in shown, form
        assert form not in stored and form not in caplog.text, form


def form_urlencoded(value: str) -> str:
    """The WHATWG application/x-www-form-urlencoded serializer: A-Z a-z 0-9 * - . _ kept,
    space as +, every other byte %XX (Python's quote_plus also keeps ~)."""
    kept = "*-._"
    return "".join(
        c
        if (c.isascii() and c.isalnum()) or c in kept
        else "+"
        if c == " "
        else "".join(f"%{b:02X}" for b in c.encode())
        for c in value
    )


def test_a_get_forms_url_with_the_password_is_masked_everywhere(
    stack: tuple[str, str, ScriptedLLMServer, LoginSite, Path], caplog: pytest.LogCaptureFixture
) -> None:
    """A plain GET form puts the password into the URL in the WHATWG form encoding, which
    leaves `*` and encodes `~` (issue 32 item 3): no model request, event, step or stored
    row shows that URL's value."""
    import httpx

    base_url, site_url, llm, site, data_dir = stack
    caplog.set_level(logging.DEBUG)
    before = len(llm.requests)
    with httpx.Client(base_url=base_url, timeout=30.0) as client:
        body = {
            "instruction": "sign in with the password",
            "start_url": f"{site_url}/get-login",
            "secrets": {"pw": {"value": GET_PASSWORD, "domains": ["127.0.0.1"]}},
            "approval_policy": "none",
        }
        created = client.post("/v1/tasks", json=body)
        assert created.status_code == 202, created.text
        task_id = created.json()["id"]
        final = wait_terminal(client, task_id)
        shown = "".join(
            client.get(f"/v1/tasks/{task_id}{tail}").text
            for tail in ("", "/steps", "/ledger", "/events")
        )
    assert final["status"] == "succeeded", final
    assert site.received[-1] == GET_PASSWORD  # the browser sent it in the URL
    whatwg = form_urlencoded(GET_PASSWORD)
    assert whatwg == "Vault*Canary%405150%7Ex"
    requests = json.dumps(llm.requests[before:], ensure_ascii=False)
    assert "/signed?" in requests  # the URL is shown, its password value masked
    stored = dump(data_dir)
    for form in (GET_PASSWORD, whatwg, quote(GET_PASSWORD, safe="-_.!~*'()")):
        assert form not in requests and form not in shown, form
        assert form not in stored and form not in caplog.text, form
