"""The Python client of the webagent API, used by the CLI.

It speaks only the public HTTP API, so it works the same against an embedded or a remote
server. Typed methods return the API's own response models (app/api/schemas.py):

    with TaskClient("http://127.0.0.1:8000", api_key=key) as client:
        task = client.submit_task(TaskCreate(instruction="...", start_url="https://..."))
        for event in client.events(task.id):        # SSE, resumes with Last-Event-ID
            print(event.seq, event.type)
        task = client.get_task(task.id)
        print(task.status, task.result.answer, task.result.data)

`ApiError.status_code` carries the HTTP status of a refused request.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import httpx

from app.api.schemas import ProfileList, ProfileOut, TaskCreate, TaskOut, TaskPage, WebhookOut
from app.api.sites import ExplorationOut, ExploreCreate, SiteOut
from app.contracts import EventType

RECONNECT_DELAY_S = 1.0
MAX_RECONNECTS = 20


@dataclass(frozen=True)
class StreamedEvent:
    seq: int
    type: str
    data: dict[str, Any]


class ApiError(RuntimeError):
    """The server refused the request (4xx/5xx): message carries its detail, `code` the
    problem's stable code (app/api/problems.py), empty when the body was not a problem."""

    def __init__(self, message: str, status_code: int = 0, code: str = "") -> None:
        super().__init__(message)
        self.status_code = status_code
        self.code = code


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
            raise ApiError(
                f"{response.status_code} {response.reason_phrase}: {_detail(response)}",
                response.status_code,
                _problem(response).get("code", ""),
            )
        body: dict[str, Any] = response.json()
        return body

    # -- typed API ------------------------------------------------------------------------
    def submit_task(self, body: TaskCreate, *, idempotency_key: str | None = None) -> TaskOut:
        headers = {"Idempotency-Key": idempotency_key} if idempotency_key else {}
        payload = body.model_dump(mode="json", exclude_unset=True)
        response = self._http.post("/v1/tasks", json=payload, headers=headers)
        return TaskOut.model_validate(self._json(response))

    def get_task(self, task_id: str) -> TaskOut:
        return TaskOut.model_validate(self.get(task_id))

    def list_tasks(
        self,
        *,
        status: str | None = None,
        domain: str | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> TaskPage:
        params = {"status": status, "domain": domain, "limit": limit, "cursor": cursor}
        query = {k: v for k, v in params.items() if v is not None}
        return TaskPage.model_validate(self._json(self._http.get("/v1/tasks", params=query)))

    def cancel_task(self, task_id: str) -> TaskOut:
        return TaskOut.model_validate(self._json(self._http.post(f"/v1/tasks/{task_id}/cancel")))

    def delete_task(self, task_id: str) -> None:
        response = self._http.delete(f"/v1/tasks/{task_id}")
        if response.is_error:
            self._json(response)

    def list_approvals(self, task_id: str) -> list[dict[str, Any]]:
        items = self._json(self._http.get(f"/v1/tasks/{task_id}/approvals")).get("items", [])
        return list(items)

    def decide_approval(self, task_id: str, approval_id: str, decision: str) -> dict[str, Any]:
        """Approve or deny a pending request (decision: approve | deny)."""
        path = f"/v1/tasks/{task_id}/approvals/{approval_id}"
        return self._json(self._http.post(path, json={"decision": decision}))

    def retry_webhook(self, task_id: str) -> WebhookOut:
        response = self._http.post(f"/v1/tasks/{task_id}/webhook/retry")
        return WebhookOut.model_validate(self._json(response))

    def create_profile(self, name: str) -> ProfileOut:
        response = self._http.post("/v1/profiles", json={"name": name})
        return ProfileOut.model_validate(self._json(response))

    def list_profiles(self) -> list[ProfileOut]:
        return ProfileList.model_validate(self._json(self._http.get("/v1/profiles"))).items

    def delete_profile(self, name: str) -> None:
        response = self._http.delete(f"/v1/profiles/{name}")
        if response.is_error:
            self._json(response)

    def start_exploration(self, body: ExploreCreate) -> ExplorationOut:
        payload = body.model_dump(mode="json", exclude_unset=True)
        response = self._http.post("/v1/sites/explore", json=payload)
        return ExplorationOut.model_validate(self._json(response))

    def get_exploration(self, exploration_id: str) -> ExplorationOut:
        response = self._http.get(f"/v1/sites/explore/{exploration_id}")
        return ExplorationOut.model_validate(self._json(response))

    def cancel_exploration(self, exploration_id: str) -> ExplorationOut:
        response = self._http.post(f"/v1/sites/explore/{exploration_id}/cancel")
        return ExplorationOut.model_validate(self._json(response))

    def get_site(self, domain: str) -> SiteOut:
        return SiteOut.model_validate(self._json(self._http.get(f"/v1/sites/{domain}")))

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


def _problem(response: httpx.Response) -> dict[str, Any]:
    """The RFC 9457 problem body, or {} when the body is something else."""
    try:
        body = response.json()
    except ValueError:
        return {}
    return body if isinstance(body, dict) else {}


def _detail(response: httpx.Response) -> str:
    """A problem's field errors (422) or its detail, else the body as text."""
    problem = _problem(response)
    errors = problem.get("errors")
    if isinstance(errors, list) and errors:
        return "; ".join(f"{'.'.join(map(str, e.get('loc', [])))}: {e.get('msg')}" for e in errors)
    detail = problem.get("detail")
    return str(detail) if detail is not None else response.text
