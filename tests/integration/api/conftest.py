"""API fixtures: the real app over a migrated SQLite DB, a recording dispatcher, a live server."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest
import uvicorn
from fastapi import FastAPI

from app.contracts import JOB_FUNC, Event
from app.db import repositories
from app.events import EventBus, MemoryEventBus
from app.main import create_app
from app.settings import Settings


@dataclass
class RecordingDispatcher:
    """Test double for the Dispatcher protocol: remembers what was enqueued."""

    enqueued: list[tuple[str, float]] = field(default_factory=list)
    jobs: list[tuple[str, str]] = field(default_factory=list)  # (row id, job function)
    depth: int = 0

    async def enqueue(self, task_id: str, *, timeout_s: float, job: str = JOB_FUNC) -> None:
        self.enqueued.append((task_id, timeout_s))
        self.jobs.append((task_id, job))

    async def queue_depth(self) -> int:
        return self.depth


def make_settings(db_url: str, **overrides: Any) -> Settings:
    base: dict[str, Any] = {
        "database_url": db_url,
        "redis_url": "",
        "allow_private_networks": False,
        "sse_ping_s": 30.0,
        "sse_db_poll_s": 60.0,
        "max_steps_limit": 100,
        "default_max_steps": 25,
        "default_timeout_s": 300.0,
    }
    base.update(overrides)
    return Settings(**base)


@contextlib.asynccontextmanager
async def running(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    """Run the lifespan and give an in-process client (buffers whole responses)."""
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as client:
            yield client


@contextlib.asynccontextmanager
async def live_server(app: FastAPI) -> AsyncIterator[str]:
    """Serve the app with uvicorn on an ephemeral port (real streaming for SSE tests)."""
    config = uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve())
    try:
        while not server.started:
            if task.done():
                task.result()
            await asyncio.sleep(0.01)
        port = server.servers[0].sockets[0].getsockname()[1]
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        await task


@pytest.fixture
def db_url(migrated_sqlite_url: str) -> str:
    return migrated_sqlite_url


@pytest.fixture
def dispatcher() -> RecordingDispatcher:
    return RecordingDispatcher()


@pytest.fixture
def bus() -> MemoryEventBus:
    return MemoryEventBus()


@pytest.fixture
def settings(db_url: str) -> Settings:
    return make_settings(db_url)


@pytest.fixture
def app(settings: Settings, dispatcher: RecordingDispatcher, bus: MemoryEventBus) -> FastAPI:
    return create_app(settings, dispatcher=dispatcher, bus=bus)


@pytest.fixture
async def client(app: FastAPI) -> AsyncIterator[httpx.AsyncClient]:
    async with running(app) as c:
        yield c


async def add_event(
    app: FastAPI, bus: EventBus | None, task_id: str, seq: int, type_: str, **data: Any
) -> Event:
    """What a worker does: persist the event, commit, then publish it live (when bus given)."""
    async with app.state.session_factory() as s:
        row = await repositories.append_event(s, task_id=task_id, seq=seq, type=type_, data=data)
        await s.commit()
        event = repositories.event_to_contract(row)
    if bus is not None:
        await bus.publish(event)
    return event


async def finish(app: FastAPI, task_id: str, status: str = "succeeded") -> None:
    async with app.state.session_factory() as s:
        await repositories.mark_running(s, task_id=task_id, worker_id="test")
        await repositories.finish_task(s, task_id=task_id, status=status, answer="42", success=True)
        await s.commit()


def parse_sse(text: str) -> list[dict[str, str]]:
    """Split an SSE body into messages (comments/pings dropped)."""
    messages = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        fields: dict[str, str] = {}
        for line in block.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            fields[name] = fields[name] + "\n" + value if name in fields else value
        if "data" in fields:
            messages.append(fields)
    return messages


async def read_sse(response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    """Yield decoded SSE messages from a streaming response as they arrive."""
    buffer = ""
    async for chunk in response.aiter_text():
        buffer += chunk.replace("\r\n", "\n")
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            for message in parse_sse(block + "\n\n"):
                yield {**message, "json": json.loads(message["data"])}
