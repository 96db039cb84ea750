"""The live view's API (app/api/live.py): the same tenant and key checks as the run page
(another tenant's key gets a 404, a read-only key cannot act), only a running task is live,
commands reach the task's relay, and frames published for the task stream to its watcher."""

from __future__ import annotations

import asyncio
import contextlib

import httpx
import pytest
from fastapi import FastAPI

from app.auth import Scope
from app.db import repositories
from app.live import LiveInput, control_message, frame_message, input_command, live_hub
from app.main import create_app
from tests.integration.api.conftest import RecordingDispatcher, live_server, make_settings, read_sse
from tests.integration.api.test_auth_keys import bearer, keyed_app, new_key
from tests.support.task_rows import add_task

W, R = Scope.tasks_write, Scope.tasks_read
CLICK = {"kind": "click", "x": 0.25, "y": 0.5}
ACTS = ("/live/takeover", "/live/handback", "/live/input")


async def _running_task(app: FastAPI, tenant: str) -> str:
    async with app.state.session_factory() as s:
        task = await add_task(s, tenant_id=tenant, instruction="count the clicks")
        await repositories.mark_running(s, task_id=task.id, worker_id="w1")
        await s.commit()
    return str(task.id)


async def test_another_tenants_key_is_refused(db_url: str) -> None:
    async with keyed_app(db_url) as (app, c):
        mine = await new_key(app, "acme", W, R)
        reader = await new_key(app, "acme", R)
        other = await new_key(app, "globex", W, R)
        tid = await _running_task(app, "acme")
        for path in ("/live", *ACTS):
            method = c.get if path == "/live" else c.post
            body = {"json": CLICK} if path.endswith("input") else {}
            foreign = await method(f"/v1/tasks/{tid}{path}", headers=bearer(other), **body)
            assert foreign.status_code == 404, path
            assert (await method(f"/v1/tasks/{tid}{path}", **body)).status_code == 401
        for path in ACTS:  # a read-only key may watch but not act
            body = {"json": CLICK} if path.endswith("input") else {}
            refused = await c.post(f"/v1/tasks/{tid}{path}", headers=bearer(reader), **body)
            assert refused.status_code == 403, path
        hub = live_hub(app.state.bus)
        assert await hub.next_command(tid, 0.01) is None  # nothing refused reached the task
        taken = await c.post(f"/v1/tasks/{tid}/live/takeover", headers=bearer(mine))
        assert taken.status_code == 202 and taken.json() == {"task_id": tid, "command": "takeover"}
        early = await c.post(f"/v1/tasks/{tid}/live/input", headers=bearer(mine), json=CLICK)
        assert early.status_code == 409, early.text  # the agent has not paused yet
        await hub.set_control(tid, "person")  # the worker paused for the person
        sent = await c.post(f"/v1/tasks/{tid}/live/input", headers=bearer(mine), json=CLICK)
        assert sent.status_code == 202, sent.text
        command = await hub.next_command(tid, 1)
        assert command is not None and command["type"] == "takeover"
        assert command["by"].startswith("key:")
        assert await hub.next_command(tid, 1) == input_command(LiveInput.model_validate(CLICK))


async def test_only_a_running_task_is_live_and_input_is_checked(db_url: str) -> None:
    async with keyed_app(db_url) as (app, c):
        key = bearer(await new_key(app, "acme", W, R))
        async with app.state.session_factory() as s:
            queued = (await add_task(s, tenant_id="acme")).id
        for path in ("/live/takeover", "/live/input"):
            answer = await c.post(f"/v1/tasks/{queued}{path}", headers=key, json=CLICK)
            assert answer.status_code == 409, path
        assert (await c.get(f"/v1/tasks/{queued}/live", headers=key)).status_code == 409
        tid = await _running_task(app, "acme")
        wrong = ({"kind": "key"}, {"kind": "key", "key": "Shift"}, {"kind": "key", "key": "ab"})
        for bad in ({"kind": "click", "x": 2}, {"kind": "drag"}, {**CLICK, "extra": 1}, *wrong):
            answer = await c.post(f"/v1/tasks/{tid}/live/input", headers=key, json=bad)
            assert answer.status_code == 422, bad


@pytest.fixture
def app(db_url: str) -> FastAPI:
    return create_app(make_settings(db_url, sse_ping_s=5.0), dispatcher=RecordingDispatcher())


async def test_frames_stream_to_a_watcher(app: FastAPI) -> None:
    async with live_server(app) as base, httpx.AsyncClient(base_url=base, timeout=20) as c:
        tid = await _running_task(app, "default")
        hub = live_hub(app.state.bus)
        frame = frame_message(b"\xff\xd8frame", 1280, 800)

        async def worker() -> None:  # publishes once the viewer watches, as a worker does
            while not await hub.watchers(tid):
                await asyncio.sleep(0.05)
            await hub.publish(tid, control_message("agent", requested=False))
            await hub.publish(tid, frame)

        publisher = asyncio.create_task(worker())
        try:
            async with c.stream("GET", f"/v1/tasks/{tid}/live") as response:
                assert response.status_code == 200
                seen = []
                async for message in read_sse(response):
                    seen.append(message["event"])
                    if message["event"] == "frame":
                        assert message["json"] == frame
                        break
        finally:
            publisher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await publisher
        assert seen == ["control", "frame"]
