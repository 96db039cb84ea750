"""A scripted OpenAI-compatible chat server for tests: real HTTP, real wire format.

POST /v1/chat/completions answers with whatever the pluggable policy decides (tool calls
with JSON-string arguments, finish_reason, usage); GET /v1/models lists one model. Usage is
an approximation documented here: tokens = ceil(characters / 4) of the request's message
contents, tool-call arguments and tool schemas (prompt), and of the reply (completion).
Every request body is recorded for assertions.
"""

from __future__ import annotations

import json
import math
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from tests.support.background import BackgroundServer
from workers.agent import prompts
from workers.agent.testing import default_planner_verdict

MODEL = "scripted-model"


@dataclass(frozen=True)
class Reply:
    """What the server answers: a chat message, an HTTP error, or a broken body."""

    content: str | None = None
    tool_calls: tuple[tuple[str, str], ...] = ()  # (name, JSON-string arguments)
    finish_reason: str | None = None
    status: int = 200
    raw_body: str | None = None  # sent verbatim (malformed-response tests)
    delay_s: float = 0.0


def tool_reply(*calls: tuple[str, dict[str, Any]], content: str | None = None) -> Reply:
    """A reply calling tools, e.g. tool_reply(("click", {"ref": "1:3"}))."""
    encoded = tuple((name, json.dumps(args)) for name, args in calls)
    return Reply(content=content, tool_calls=encoded, finish_reason="tool_calls")


def raw_tool_reply(name: str, raw_arguments: str) -> Reply:
    """A tool call whose arguments string is sent as-is (e.g. malformed JSON)."""
    return Reply(tool_calls=((name, raw_arguments),), finish_reason="tool_calls")


def text_reply(text: str) -> Reply:
    return Reply(content=text, finish_reason="stop")


def error_reply(status: int = 500, message: str = "scripted failure") -> Reply:
    body = json.dumps({"error": {"message": message, "type": "server_error", "code": None}})
    return Reply(status=status, raw_body=body)


def malformed_reply() -> Reply:
    """HTTP 200 whose body is not JSON at all."""
    return Reply(raw_body="{this is not json")


Policy = Callable[[dict[str, Any]], Reply]
PLANNER_SCHEMA_NAME = "planner_verdict"


def request_role(request: dict[str, Any]) -> str:
    """Which agent role sent a request, read from the request like a proxy could:
    the Planner asks for its JSON schema, the summarizer speaks with its system prompt."""
    schema = (request.get("response_format") or {}).get("json_schema") or {}
    if schema.get("name") == PLANNER_SCHEMA_NAME:
        return "planner"
    messages = request.get("messages") or [{}]
    first = messages[0].get("content")
    if isinstance(first, str) and first.strip() == prompts.load("memory_system.md").strip():
        return "summarizer"
    return "other"


def side_reply(request: dict[str, Any]) -> Reply | None:
    """Default answers for the Planner and the summarizer, so policies written for the
    Worker keep working: the Planner accepts a completion claim as stated and otherwise lets
    the Worker go on; the summarizer repeats the last line it was given."""
    role = request_role(request)
    text = "\n".join(_content_text(m.get("content")) for m in request.get("messages") or [])
    if role == "planner":
        return text_reply(json.dumps(default_planner_verdict(text)))
    if role == "summarizer":
        lines = text.strip().splitlines()
        return text_reply((lines[-1] if lines else "summary")[:200])
    return None


def estimate_tokens(text: str) -> int:
    """The documented approximation: one token per four characters, rounded up."""
    return math.ceil(len(text) / 4)


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # multimodal parts: count the text ones
        return "".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def prompt_text(request: dict[str, Any]) -> str:
    """All text the model would read: message contents, earlier tool calls, tool schemas."""
    parts = []
    for message in request.get("messages", []):
        parts.append(_content_text(message.get("content")))
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            parts.append(function.get("name", "") + function.get("arguments", ""))
    if request.get("tools"):
        parts.append(json.dumps(request["tools"]))
    return "".join(parts)


def completion_body(request: dict[str, Any], reply: Reply) -> dict[str, Any]:
    """A chat.completion object in the OpenAI wire format."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.content}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": f"call_{uuid.uuid4().hex[:12]}",
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            }
            for name, arguments in reply.tool_calls
        ]
    out_text = (reply.content or "") + "".join(n + a for n, a in reply.tool_calls)
    prompt_tokens = estimate_tokens(prompt_text(request))
    completion_tokens = estimate_tokens(out_text)
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", MODEL),
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": reply.finish_reason or "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def conversation_error(messages: list[dict[str, Any]]) -> str | None:
    """What a real endpoint would refuse with 400: bad roles, orphaned or missing tool replies."""
    pending: set[str] = set()
    for i, message in enumerate(messages):
        role = message.get("role")
        if role not in ("system", "developer", "user", "assistant", "tool"):
            return f"messages[{i}]: invalid role {role!r}"
        if role == "tool":
            if message.get("tool_call_id") not in pending:
                return f"messages[{i}]: tool message does not answer a preceding tool call"
            pending.discard(message["tool_call_id"])
            continue
        if pending:
            return f"messages[{i}]: tool calls {sorted(pending)} have no tool message"
        if role == "assistant":
            for call in message.get("tool_calls") or []:
                if not isinstance(call.get("function", {}).get("arguments"), str):
                    return f"messages[{i}]: tool call arguments must be a string"
                pending.add(call["id"])
    if pending:
        return f"tool calls {sorted(pending)} have no tool message"
    return None


def _no_policy(request: dict[str, Any]) -> Reply:
    return error_reply(500, "no policy set on the scripted LLM server")


class ScriptedLLMServer(BackgroundServer):
    """Background-thread HTTP server; `base_url` ends in /v1 like a real endpoint."""

    def __init__(self, policy: Policy | None = None) -> None:
        self.policy: Policy = policy or _no_policy
        self.answers_side_roles = False  # True: Planner and summarizer calls reach the policy
        self.requests: list[dict[str, Any]] = []
        self.authorizations: list[str] = []
        self.rejected: list[str] = []  # conversation errors answered with 400
        self._lock = threading.Lock()
        super().__init__(self._handler())

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    def set_policy(self, policy: Policy, *, side_roles: bool = False) -> None:
        """`side_roles`: the policy answers Planner and summarizer requests itself."""
        self.policy = policy
        self.answers_side_roles = side_roles

    def prompt_tokens(self) -> list[int]:
        """Estimated prompt size of every chat request received, in order."""
        return [estimate_tokens(prompt_text(r)) for r in self.requests]

    def _answer(self, request: dict[str, Any]) -> tuple[int, str]:
        with self._lock:
            self.requests.append(request)
        problem = conversation_error(request.get("messages") or [])
        if problem:
            self.rejected.append(problem)
            return 400, json.dumps({"error": {"message": problem, "type": "invalid_request_error"}})
        reply = None if self.answers_side_roles else side_reply(request)
        reply = reply or self.policy(request)
        if reply.delay_s:
            time.sleep(reply.delay_s)
        if reply.raw_body is not None:
            return reply.status, reply.raw_body
        return reply.status, json.dumps(completion_body(request, reply))

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                return

            def _send(self, status: int, body: str) -> None:
                data = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self) -> None:
                if self.path.rstrip("/") != "/v1/models":
                    return self._send(404, json.dumps({"error": {"message": "not found"}}))
                model = {"id": MODEL, "object": "model", "created": 0, "owned_by": "tests"}
                self._send(200, json.dumps({"object": "list", "data": [model]}))

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    return self._send(404, json.dumps({"error": {"message": "not found"}}))
                with server._lock:
                    server.authorizations.append(self.headers.get("Authorization", ""))
                try:
                    request = json.loads(raw)
                except json.JSONDecodeError:
                    return self._send(400, json.dumps({"error": {"message": "bad json"}}))
                if request.get("stream"):
                    return self._send(400, json.dumps({"error": {"message": "no streaming"}}))
                self._send(*server._answer(request))

        return Handler


@pytest.fixture
def llm_server() -> Iterator[ScriptedLLMServer]:
    """A running scripted server; tests call `llm_server.set_policy(...)` first."""
    with ScriptedLLMServer() as server:
        yield server
