"""The worker never loads anything an output_schema points at (issue 32, item 1).

A schema with a `$ref` to an HTTP server (served by the test on 127.0.0.1) or to a
`file://` path goes straight to the validator and to `settle`: no request arrives, the
file's content reaches no model call and no result, and the task ends `output_invalid`
saying the schema cannot be used (not `internal`). Both layers are tested: the check
`settle` runs first, and the registry that cannot retrieve (with that check bypassed)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from workers.agent import structured
from workers.agent.protocols import AgentOutcome, LLMReply
from workers.agent.structured import UNUSABLE, SchemaUnusable, check_value, settle
from workers.agent.testing import FakeLLM, message_text

CANARY = "FILE-CANARY-7731"
HTTP_CANARY = "HTTP-CANARY-5150"


class _Server:
    def __init__(self) -> None:
        self.paths: list[str] = []
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                owner.paths.append(self.path)
                body = json.dumps({"enum": [HTTP_CANARY]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/schema.json"


@pytest.fixture
def server() -> Iterator[_Server]:
    srv = _Server()
    thread = threading.Thread(target=srv.httpd.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.httpd.shutdown()
    srv.httpd.server_close()


@pytest.fixture
def schema_file(tmp_path: Path) -> str:
    path = tmp_path / "local.json"
    path.write_text(json.dumps({"enum": [CANARY]}))
    return path.as_uri()


def _schema(ref: str) -> dict[str, Any]:
    return {"type": "object", "properties": {"v": {"$ref": ref}}, "required": ["v"]}


def _outcome() -> AgentOutcome:
    return AgentOutcome('{"v": "x"}', True, "succeeded", 3, 3, 300, 30)


def _reply() -> LLMReply:
    return LLMReply('{"v": "y"}', (), 40, 12, "fake-model", 0.01, "stop")


def test_validator_fetches_no_url(server: _Server) -> None:
    with pytest.raises(SchemaUnusable):
        check_value({"v": "x"}, _schema(server.url))
    assert server.paths == []


def test_validator_reads_no_file(schema_file: str) -> None:
    with pytest.raises(SchemaUnusable) as caught:
        check_value({"v": "x"}, _schema(schema_file))
    assert CANARY not in str(caught.value)


def test_validator_refuses_a_loop_instead_of_recursing_forever() -> None:
    with pytest.raises(SchemaUnusable):
        check_value({"v": 1}, {"$defs": {"a": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"})


@pytest.mark.parametrize("bypass", [False, True], ids=["checked", "registry-only"])
async def test_settle_ends_output_invalid_without_loading(
    server: _Server, schema_file: str, bypass: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if bypass:  # whatever the API let through: only the registry stands
        monkeypatch.setattr(structured, "output_schema_problem", lambda schema: None)
    for ref in (server.url, schema_file):
        llm = FakeLLM([_reply()])
        settled = await settle(_outcome(), _schema(ref), llm, "find it")
        assert (settled.status, settled.error) == ("failed", "output_invalid")
        assert settled.reason.startswith(UNUSABLE) and settled.data is None
        sent = " ".join(message_text(messages) for _, messages, _ in llm.calls)
        assert CANARY not in sent + settled.reason and HTTP_CANARY not in sent + settled.reason
    assert server.paths == []
