"""The asynchronous client (httpx.AsyncClient): the same methods as `Client`, awaited.

async with AsyncClient("http://127.0.0.1:8000", api_key=key) as client:
    task = await client.submit_task(TaskCreate(instruction="...", start_url="https://..."))
    async for event in client.events(task.id):
        print(event.seq, event.type)
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
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
    aparse_sse,
)
from webagent_client.typed import TypedTask, typed

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T", bound=BaseModel)


class AsyncClient:
    """Typed methods over the public HTTP API; errors raise `webagent_client.errors`."""

    def __init__(
        self,
        base_url: str,
        *,
        api_key: str | None = None,
        timeout: float = 30.0,
        reconnect_delay_s: float = RECONNECT_DELAY_S,
        max_reconnects: int = MAX_RECONNECTS,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.AsyncClient(
            base_url=base_url.rstrip("/"), headers=headers, timeout=timeout, transport=transport
        )
        self._reconnect_delay_s = reconnect_delay_s
        self._max_reconnects = max_reconnects

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    async def _send(self, call: _calls.Call[M]) -> M:
        result = await self._send_optional(call)
        assert result is not None
        return result

    async def _send_optional(self, call: _calls.Call[M]) -> M | None:
        return call.parse(await self._http.request(call.method, call.path, **call.request()))

    async def submit_task(self, body: TaskCreate, *, idempotency_key: str | None = None) -> TaskOut:
        return await self._send(_calls.submit_task(body, idempotency_key))

    async def get_task(self, task_id: str) -> TaskOut:
        return await self._send(_calls.get_task(task_id))

    async def list_tasks(
        self,
        *,
        status: TaskStatus | str | None = None,
        domain: str | None = None,
        limit: int = 50,
        cursor: str | None = None,
        q: str | None = None,
    ) -> TaskPage:
        return await self._send(_calls.list_tasks(status, domain, limit, cursor, q))

    async def cancel_task(self, task_id: str) -> TaskOut:
        return await self._send(_calls.cancel_task(task_id))

    async def list_steps(self, task_id: str) -> StepList:
        return await self._send(_calls.list_steps(task_id))

    async def get_ledger(self, task_id: str) -> LedgerOut:
        return await self._send(_calls.get_ledger(task_id))

    async def create_profile(self, name: str) -> ProfileOut:
        return await self._send(_calls.create_profile(name))

    async def list_profiles(self) -> list[ProfileOut]:
        return (await self._send(_calls.list_profiles())).items

    async def delete_profile(self, name: str) -> None:
        await self._send_optional(_calls.delete_profile(name))

    async def delete_task(self, task_id: str) -> None:
        """Delete a finished task with its events, artifacts and files (204)."""
        await self._send_optional(_calls.delete_task(task_id))

    async def list_approvals(self, task_id: str) -> list[ApprovalOut]:
        return (await self._send(_calls.list_approvals(task_id))).items

    async def approve(self, task_id: str, approval_id: str) -> ApprovalOut:
        return await self._send(_calls.decide_approval(task_id, approval_id, Decision.approve))

    async def deny(self, task_id: str, approval_id: str) -> ApprovalOut:
        return await self._send(_calls.decide_approval(task_id, approval_id, Decision.deny))

    async def list_artifacts(self, task_id: str) -> list[ArtifactOut]:
        """Screenshots, downloads and traces the run kept (metadata; bytes: download_artifact)."""
        return (await self._send(_calls.list_artifacts(task_id))).root

    async def download_artifact(self, task_id: str, artifact_id: str) -> bytes:
        """The artifact's bytes (follows the service's redirect to a signed store URL)."""
        path = _calls.artifact_path(task_id, artifact_id)
        response = await self._http.get(path, follow_redirects=True)
        if response.is_error:
            raise error_for(response)
        return response.content

    async def get_domain(self, domain: str) -> DomainOut:
        """What the service learned about a site (routes, facts, dead ends)."""
        return await self._send(_calls.get_domain(domain))

    async def forget_domain(self, domain: str) -> Forgotten:
        """Drop everything learned about a site."""
        return await self._send(_calls.forget_domain(domain))

    async def list_guides(self) -> list[GuideOut]:
        return (await self._send(_calls.list_guides())).guides

    async def wait_task(
        self, task_id: str, *, timeout_s: float = 300.0, poll_s: float = 0.5
    ) -> TaskOut:
        """Poll until the task has ended; TimeoutError after `timeout_s`."""
        deadline = time.monotonic() + timeout_s
        while (task := await self.get_task(task_id)).status not in TERMINAL:
            if time.monotonic() > deadline:
                raise TimeoutError(f"task {task_id} still {task.status} after {timeout_s} s")
            await asyncio.sleep(poll_s)
        return task

    async def wait_typed(
        self, task_id: str, output: type[T], *, timeout_s: float = 300.0, poll_s: float = 0.5
    ) -> TypedTask[T]:
        """wait_task, then `result.data` validated as `output` (a pydantic model class);
        `.data` is None when the task ended without data."""
        task = await self.wait_task(task_id, timeout_s=timeout_s, poll_s=poll_s)
        return typed(task, output)

    async def events(self, task_id: str, *, after: int = 0) -> AsyncIterator[EventOut]:
        """Every event after seq `after` once, in order, until task.finished (see
        `Client.events`)."""
        resume = Resume(after, self._max_reconnects)
        while True:
            try:
                async for event in self._stream(task_id, resume):
                    yield event
                    if event.type == FINISHED:
                        return
            except httpx.TransportError:
                if not resume.dropped():
                    raise
                await asyncio.sleep(self._reconnect_delay_s)
                continue
            if (await self.get_task(task_id)).status in TERMINAL:
                return  # the stream ended without task.finished (e.g. the task was reaped)
            await asyncio.sleep(self._reconnect_delay_s)

    async def _stream(self, task_id: str, resume: Resume) -> AsyncIterator[EventOut]:
        kw: dict[str, Any] = {"headers": resume.headers(), "timeout": None}
        async with self._http.stream("GET", _calls.events_path(task_id), **kw) as response:
            if response.is_error:
                await response.aread()
                raise error_for(response)
            async for _type, _id, data in aparse_sse(_alive(response.aiter_lines(), resume)):
                if (event := resume.accept(data)) is not None:
                    yield event


async def _alive(lines: AsyncIterator[str], resume: Resume) -> AsyncIterator[str]:
    async for line in lines:
        resume.alive()
        yield line
