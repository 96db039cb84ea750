"""HTTP client for `webagent run`: submit a task, follow its SSE stream, resume on drops.

It speaks only the public API (POST /v1/tasks, GET /v1/tasks/{id}/events with
Last-Event-ID), so it works the same against an embedded or a remote server.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from app.contracts import EventType

RECONNECT_DELAY_S = 1.0
MAX_RECONNECTS = 20


@dataclass(frozen=True)
class StreamedEvent:
    seq: int
    type: str
    data: dict[str, Any]


class ApiError(RuntimeError):
    """The server refused the request (4xx/5xx); message carries its detail."""


def parse_sse(lines: Iterator[str]) -> Iterator[tuple[str, str, str]]:
    """(event, id, data) per SSE message; comments (pings) and retry fields are skipped."""
    event, event_id = "message", ""
    data: list[str] = []
    for line in lines:
        if not line:
            payload = "\n".join(data)
            if payload:  # an empty data buffer dispatches nothing (SSE spec)
                yield event, event_id, payload
            event, event_id, data = "message", "", []
            continue
        if line.startswith(":"):
            continue
        field, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if field == "event":
            event = value
        elif field == "id":
            event_id = value
        elif field == "data":
            data.append(value)


def _alive(lines: Iterator[str], on_line: Callable[[], None]) -> Iterator[str]:
    """Pass lines through, calling `on_line` for each (pings included)."""
    for line in lines:
        on_line()
        yield line


class TaskClient:
    """Thin synchronous client over httpx."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        reconnect_delay_s: float = RECONNECT_DELAY_S,
        transport: httpx.BaseTransport | None = None,
    ):
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(
            base_url=base_url.rstrip("/"), headers=headers, timeout=timeout, transport=transport
        )
        self._reconnect_delay_s = reconnect_delay_s

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> TaskClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _json(self, response: httpx.Response) -> dict[str, Any]:
        if response.is_error:
            raise ApiError(f"{response.status_code} {response.reason_phrase}: {response.text}")
        body: dict[str, Any] = response.json()
        return body

    def submit(self, body: dict[str, Any]) -> dict[str, Any]:
        return self._json(self._http.post("/v1/tasks", json=body))

    def get(self, task_id: str) -> dict[str, Any]:
        return self._json(self._http.get(f"/v1/tasks/{task_id}"))

    def events(self, task_id: str) -> Iterator[StreamedEvent]:
        """Every event once, in seq order, until task.finished (reconnects with Last-Event-ID).

        Only consecutive connects that received nothing count against MAX_RECONNECTS: a
        stream that delivered a keep-alive or an event and then dropped (an idle cut during a
        long model call) starts the count over.
        """
        last, attempts = 0, 0

        def on_line() -> None:
            nonlocal attempts
            attempts = 0

        while True:
            headers = {"Last-Event-ID": str(last)} if last else {}
            try:
                with self._http.stream(
                    "GET", f"/v1/tasks/{task_id}/events", headers=headers, timeout=None
                ) as response:
                    if response.is_error:
                        response.read()
                        self._json(response)
                    for _type, _id, data in parse_sse(_alive(response.iter_lines(), on_line)):
                        event = json.loads(data)
                        if event["seq"] <= last:
                            continue
                        last, attempts = event["seq"], 0
                        yield StreamedEvent(event["seq"], event["type"], event.get("data", {}))
                        if event["type"] == EventType.task_finished:
                            return
            except (httpx.TransportError, httpx.RemoteProtocolError):
                attempts += 1
                if attempts > MAX_RECONNECTS:
                    raise
                time.sleep(self._reconnect_delay_s)
                continue
            if self.get(task_id)["status"] in ("succeeded", "failed", "cancelled", "timed_out"):
                return  # stream ended without task.finished (e.g. reaped before it was written)
