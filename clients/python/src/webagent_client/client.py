"""The synchronous client (httpx.Client).

with Client("http://127.0.0.1:8000", api_key=key) as client:
    task = client.submit_task(TaskCreate(instruction="...", start_url="https://..."))
    for event in client.events(task.id):    # resumes with Last-Event-ID after a drop
        print(event.seq, event.type)
    print(client.get_task(task.id).result)
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any, TypeVar

import httpx
from pydantic import BaseModel

from webagent_client import _calls
from webagent_client.errors import error_for
from webagent_client.models import (
    ApprovalOut,
    ArtifactOut,
    Decision,
    DomainOut,
    EventOut,
    Forgotten,
    GuideOut,
    LedgerOut,
    ProfileOut,
    StepList,
    TaskCreate,
    TaskOut,
    TaskPage,
    TaskStatus,
)
from webagent_client.sse import (
    FINISHED,
    MAX_RECONNECTS,
    RECONNECT_DELAY_S,
    TERMINAL,
    Resume,
    parse_sse,
)
from webagent_client.typed import TypedTask, typed

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T", bound=BaseModel)


class Client:
    """Typed methods over the public HTTP API; errors raise `webagent_client.errors`."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        reconnect_delay_s: float = RECONNECT_DELAY_S,
        max_reconnects: int = MAX_RECONNECTS,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(
            base_url=base_url.rstrip("/"), headers=headers, timeout=timeout, transport=transport
        )
        self._reconnect_delay_s = reconnect_delay_s
        self._max_reconnects = max_reconnects

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _send(self, call: _calls.Call[M]) -> M:
        result = self._send_optional(call)
        assert result is not None
        return result

    def _send_optional(self, call: _calls.Call[M]) -> M | None:
        return call.parse(self._http.request(call.method, call.path, **call.request()))

    def submit_task(self, body: TaskCreate, *, idempotency_key: str | None = None) -> TaskOut:
        return self._send(_calls.submit_task(body, idempotency_key))

    def get_task(self, task_id: str) -> TaskOut:
        return self._send(_calls.get_task(task_id))

    def list_tasks(
        self,
        *,
        status: TaskStatus | str | None = None,
        domain: str | None = None,
        limit: int = 50,
        cursor: str | None = None,
        q: str | None = None,
    ) -> TaskPage:
        return self._send(_calls.list_tasks(status, domain, limit, cursor, q))

    def cancel_task(self, task_id: str) -> TaskOut:
        return self._send(_calls.cancel_task(task_id))

    def list_steps(self, task_id: str) -> StepList:
        return self._send(_calls.list_steps(task_id))

    def get_ledger(self, task_id: str) -> LedgerOut:
        return self._send(_calls.get_ledger(task_id))

    def create_profile(self, name: str) -> ProfileOut:
        return self._send(_calls.create_profile(name))

    def list_profiles(self) -> list[ProfileOut]:
        return self._send(_calls.list_profiles()).items

    def delete_profile(self, name: str) -> None:
        self._send_optional(_calls.delete_profile(name))

    def delete_task(self, task_id: str) -> None:
        """Delete a finished task with its events, artifacts and files (204)."""
        self._send_optional(_calls.delete_task(task_id))

    def list_approvals(self, task_id: str) -> list[ApprovalOut]:
        return (self._send(_calls.list_approvals(task_id))).items

    def approve(self, task_id: str, approval_id: str) -> ApprovalOut:
        return self._send(_calls.decide_approval(task_id, approval_id, Decision.approve))

    def deny(self, task_id: str, approval_id: str) -> ApprovalOut:
        return self._send(_calls.decide_approval(task_id, approval_id, Decision.deny))

    def list_artifacts(self, task_id: str) -> list[ArtifactOut]:
        """Screenshots, downloads and traces the run kept (metadata; bytes: download_artifact)."""
        return (self._send(_calls.list_artifacts(task_id))).root

    def download_artifact(self, task_id: str, artifact_id: str) -> bytes:
        """The artifact's bytes (follows the service's redirect to a signed store URL)."""
        path = _calls.artifact_path(task_id, artifact_id)
        response = self._http.get(path, follow_redirects=True)
        if response.is_error:
            raise error_for(response)
        return response.content

    def get_domain(self, domain: str) -> DomainOut:
        """What the service learned about a site (routes, facts, dead ends)."""
        return self._send(_calls.get_domain(domain))

    def forget_domain(self, domain: str) -> Forgotten:
        """Drop everything learned about a site."""
        return self._send(_calls.forget_domain(domain))

    def list_guides(self) -> list[GuideOut]:
        return (self._send(_calls.list_guides())).guides

    def wait_task(self, task_id: str, *, timeout_s: float = 300.0, poll_s: float = 0.5) -> TaskOut:
        """Poll until the task has ended; TimeoutError after `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        while (task := self.get_task(task_id)).status not in TERMINAL:
            if time.monotonic() > deadline:
                raise TimeoutError(f"task {task_id} still {task.status} after {timeout_s} s")
            time.sleep(poll_s)
        return task

    def wait_typed(
        self, task_id: str, output: type[T], *, timeout_s: float = 300.0, poll_s: float = 0.5
    ) -> TypedTask[T]:
        """wait_task, then `result.data` validated as `output` (a pydantic model class);
        `.data` is None when the task ended without data."""
        task = self.wait_task(task_id, timeout_s=timeout_s, poll_s=poll_s)
        return typed(task, output)

    def events(self, task_id: str, *, after: int = 0) -> Iterator[EventOut]:
        """Every event after seq `after` once, in order, until task.finished.

        A dropped stream is reopened with Last-Event-ID; pass the last seq you saw as `after`
        to resume a stream you stopped reading."""
        resume = Resume(after, self._max_reconnects)
        while True:
            try:
                for event in self._stream(task_id, resume):
                    yield event
                    if event.type == FINISHED:
                        return
            except httpx.TransportError:
                if not resume.dropped():
                    raise
                time.sleep(self._reconnect_delay_s)
                continue
            if self.get_task(task_id).status in TERMINAL:
                return  # the stream ended without task.finished (e.g. the task was reaped)
            time.sleep(self._reconnect_delay_s)

    def _stream(self, task_id: str, resume: Resume) -> Iterator[EventOut]:
        kw: dict[str, Any] = {"headers": resume.headers(), "timeout": None}
        with self._http.stream("GET", _calls.events_path(task_id), **kw) as response:
            if response.is_error:
                response.read()
                raise error_for(response)
            for _type, _id, data in parse_sse(_alive(response.iter_lines(), resume)):
                if (event := resume.accept(data)) is not None:
                    yield event


def _alive(lines: Iterator[str], resume: Resume) -> Iterator[str]:
    for line in lines:
        resume.alive()
        yield line
