"""`webagent run` shows an approval request and lets the person decide it (relay after
fidelity wave 3, finding 9: the run waited ~100 s in silence for an approval)."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import typer

from workers.cli import client as client_module
from workers.cli.commands import service

APPROVAL = {
    "approval_id": "a1",
    "kind": "sensitive_action",
    "reason": "click on button 'Confirm order' ('confirm')",
    "url": "http://shop.test/order",
    "element": "button 'Confirm order'",
    "expires_at": "2026-11-27T23:00:00Z",
}


def _sse(*events: tuple[str, dict[str, Any]]) -> str:
    out = []
    for seq, (kind, data) in enumerate(events, 1):
        body = {"seq": seq, "type": kind, "data": data}
        out.append(f"event: {kind}\nid: {seq}\ndata: {json.dumps(body)}\n\n")
    return "".join(out)


class FakeServer:
    """The API calls of one run: a task that asks for one approval, then finishes."""

    def __init__(self) -> None:
        self.seen: list[str] = []
        self.decisions: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        path = request.url.path
        self.seen.append(f"{request.method} {path}")
        if request.method == "POST" and path == "/v1/tasks":
            return httpx.Response(201, json={"id": "t1", "max_steps": 5})
        if path == "/v1/tasks/t1/events":
            text = _sse(
                ("approval.requested", {"step": 2, **APPROVAL}),
                ("task.finished", {"status": "succeeded"}),
            )
            return httpx.Response(200, text=text, headers={"content-type": "text/event-stream"})
        if path == "/v1/tasks/t1/approvals" and request.method == "GET":
            item = {"id": "a1", "details": {"rule": "keyword", "url": APPROVAL["url"]}}
            return httpx.Response(200, json={"task_id": "t1", "items": [item]})
        if path == "/v1/tasks/t1/approvals/a1" and request.method == "POST":
            self.decisions.append(json.loads(request.content))
            return httpx.Response(200, json={"id": "a1", "status": "approved"})
        if path == "/v1/tasks/t1":
            return httpx.Response(200, json={"id": "t1", "status": "succeeded", "result": {}})
        return httpx.Response(404, json={"detail": "no such route"})


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> FakeServer:
    fake = FakeServer()
    real = client_module.TaskClient

    def with_fake(base_url: str, **kw: Any) -> Any:
        return real(base_url, transport=httpx.MockTransport(fake), **kw)

    monkeypatch.setattr(client_module, "TaskClient", with_fake)
    return fake


def test_json_run_prints_the_pending_approval_as_one_line_with_the_commands(
    server: FakeServer, capsys: pytest.CaptureFixture[str]
) -> None:
    task = service._submit_and_follow(
        "http://api.test", {"instruction": "x"}, api_key="k", quiet=True
    )
    assert task["status"] == "succeeded"
    err = capsys.readouterr().err
    line = json.loads(next(x for x in err.splitlines() if x.startswith("{")))
    assert line["event"] == "approval.requested" and line["approval_id"] == "a1"
    assert line["rule"] == "keyword" and "Confirm order" in line["action"]
    url = "http://api.test/v1/tasks/t1/approvals/a1"
    assert line["approve"].endswith(url) and '{"decision": "approve"}' in line["approve"]
    assert "$WEBAGENT_CLIENT_API_KEY" in line["deny"] and " k " not in line["deny"] + " "
    assert server.decisions == []  # nobody was asked: nothing is decided for the person


class _Terminal:
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(("answer", "decision"), [(True, "approve"), (False, "deny")])
def test_at_a_terminal_the_run_asks_and_posts_the_answer(
    server: FakeServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    answer: bool,
    decision: str,
) -> None:
    asked: list[str] = []

    def confirm(text: str, **kw: Any) -> bool:
        asked.append(text)
        return answer

    monkeypatch.setattr("sys.stdin", _Terminal())
    monkeypatch.setattr(typer, "confirm", confirm)
    service._submit_and_follow("http://api.test", {"instruction": "x"}, api_key=None, quiet=False)
    err = capsys.readouterr().err
    assert "approval needed (sensitive_action, rule keyword)" in err, err
    assert "Confirm order" in err and "curl -X POST" in err and "Authorization" not in err
    assert asked and server.decisions == [{"decision": decision}]
