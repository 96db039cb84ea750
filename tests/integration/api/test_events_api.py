"""SSE replay/resume/live tail, steps and screenshots, health and metrics (SQLite + memory bus)."""

from __future__ import annotations

import asyncio
import json

import httpx
from fastapi import FastAPI

from app import metrics
from app.db import repositories
from app.events import MemoryEventBus
from app.store.records import keep_artifact
from tests.integration.api.conftest import (
    RecordingDispatcher,
    add_event,
    finish,
    live_server,
    parse_sse,
    read_sse,
)

BODY = {"instruction": "buy a mug", "start_url": "https://93.184.215.14/shop"}


async def _new_task(client: httpx.AsyncClient) -> str:
    resp = await client.post("/v1/tasks", json=BODY)
    assert resp.status_code == 202, resp.text
    return str(resp.json()["id"])


async def test_sse_full_replay_of_a_finished_task(client: httpx.AsyncClient, app: FastAPI) -> None:
    task_id = await _new_task(client)
    await add_event(app, None, task_id, 1, "task.started")
    await add_event(app, None, task_id, 2, "step.started", step=1)
    await add_event(app, None, task_id, 3, "action.executed", step=1, action={"name": "click"})
    await finish(app, task_id)
    await add_event(app, None, task_id, 4, "task.finished", status="succeeded")

    resp = await client.get(f"/v1/tasks/{task_id}/events")
    assert resp.status_code == 200
    assert resp.headers["content-type"].startswith("text/event-stream")
    messages = parse_sse(resp.text)
    assert [m["id"] for m in messages] == ["1", "2", "3", "4"]
    assert [m["event"] for m in messages] == [
        "task.started",
        "step.started",
        "action.executed",
        "task.finished",
    ]
    body = json.loads(messages[2]["data"])
    assert set(body) == {"id", "task_id", "seq", "ts", "type", "data"}
    assert body["task_id"] == task_id and body["seq"] == 3
    assert body["data"] == {"step": 1, "action": {"name": "click"}}

    resumed = await client.get(f"/v1/tasks/{task_id}/events", headers={"Last-Event-ID": "2"})
    assert [m["id"] for m in parse_sse(resumed.text)] == ["3", "4"]
    by_query = await client.get(f"/v1/tasks/{task_id}/events", params={"after": 3})
    assert [m["id"] for m in parse_sse(by_query.text)] == ["4"]


async def test_sse_ends_for_terminal_task_without_finished_event(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    task_id = await _new_task(client)
    await finish(app, task_id, status="failed")  # e.g. reaped before its event was written
    resp = await client.get(f"/v1/tasks/{task_id}/events")
    assert resp.status_code == 200
    assert parse_sse(resp.text) == []


async def test_cancelling_a_queued_task_writes_its_finished_event(
    client: httpx.AsyncClient,
) -> None:
    """No worker will run it, so the API ends its stream with task.finished itself."""
    task_id = await _new_task(client)
    assert (await client.post(f"/v1/tasks/{task_id}/cancel")).status_code == 202
    messages = parse_sse((await client.get(f"/v1/tasks/{task_id}/events")).text)
    assert [(m["id"], m["event"]) for m in messages] == [("1", "task.finished")]
    data = json.loads(messages[0]["data"])["data"]
    assert data["status"] == "cancelled" and data["success"] is False


async def test_sse_resume_mid_run_then_live_without_gap_or_duplicate(
    app: FastAPI, bus: MemoryEventBus
) -> None:
    """Client resumes at Last-Event-ID 2 while the run is live; sse_db_poll_s is 60 s in
    these settings, so events 4.. can only arrive through the live bus (or gap backfill)."""
    async with live_server(app) as base, httpx.AsyncClient(base_url=base, timeout=30) as client:
        task_id = await _new_task(client)
        for seq in (1, 2, 3):
            await add_event(app, bus, task_id, seq, "step.started", step=seq)
        gauge_before = metrics.sample_value("webagent_sse_connections")
        seen: list[int] = []
        headers = {"Last-Event-ID": "2"}
        async with client.stream("GET", f"/v1/tasks/{task_id}/events", headers=headers) as resp:
            assert resp.status_code == 200
            stream = read_sse(resp)
            first = await anext(stream)
            seen.append(first["json"]["seq"])  # 3, replayed from the DB
            assert metrics.sample_value("webagent_sse_connections") == gauge_before + 1
            # live: 4 and 5 published; 3 re-published (duplicate) must be skipped
            await add_event(app, bus, task_id, 4, "action.executed", step=3)
            await bus.publish((await _stored(app, task_id))[2])
            await add_event(app, bus, task_id, 5, "observation", step=3)
            # 6 is persisted but its publish is lost; 7 arrives live → 6 is backfilled
            await add_event(app, None, task_id, 6, "step.started", step=4)
            await finish(app, task_id)
            await add_event(app, bus, task_id, 7, "task.finished", status="succeeded")
            async for message in stream:
                seen.append(message["json"]["seq"])
                assert message["id"] == str(message["json"]["seq"])
        assert seen == [3, 4, 5, 6, 7]
        for _ in range(100):  # the server notices the end of the stream shortly after
            if metrics.sample_value("webagent_sse_connections") == gauge_before:
                break
            await asyncio.sleep(0.05)
        assert metrics.sample_value("webagent_sse_connections") == gauge_before
    assert bus.subscriber_count(task_id) == 0


async def _stored(app: FastAPI, task_id: str) -> list:
    async with app.state.session_factory() as s:
        rows = await repositories.list_events(s, task_id=task_id)
        return [repositories.event_to_contract(r) for r in rows]


async def test_sse_idle_poll_recovers_a_lost_final_publish(
    db_url: str, dispatcher: RecordingDispatcher
) -> None:
    """With a short DB poll, a task.finished that was never published still ends the stream."""
    from app.main import create_app
    from tests.integration.api.conftest import make_settings

    bus = MemoryEventBus()
    app = create_app(make_settings(db_url, sse_db_poll_s=0.2), dispatcher=dispatcher, bus=bus)
    async with live_server(app) as base, httpx.AsyncClient(base_url=base, timeout=30) as client:
        task_id = await _new_task(client)
        await add_event(app, bus, task_id, 1, "task.started")
        async with client.stream("GET", f"/v1/tasks/{task_id}/events") as resp:
            stream = read_sse(resp)
            assert (await anext(stream))["json"]["seq"] == 1
            await finish(app, task_id)
            await add_event(app, None, task_id, 2, "task.finished", status="succeeded")
            rest = [m["json"]["seq"] async for m in stream]
        assert rest == [2]


async def test_steps_and_screenshots(client: httpx.AsyncClient, app: FastAPI) -> None:
    task_id = await _new_task(client)
    await add_event(app, None, task_id, 1, "task.started")
    await add_event(app, None, task_id, 2, "step.started", step=1)
    await add_event(app, None, task_id, 3, "action.executed", step=1, action={"name": "goto"})
    await add_event(app, None, task_id, 4, "observation", step=1, url="https://x/")
    await add_event(app, None, task_id, 5, "llm.call", step=1, role="worker")
    await add_event(app, None, task_id, 6, "step.started", step=2)
    jpeg = b"\xff\xd8\xff\xe0fake-jpeg-bytes\xff\xd9"
    async with app.state.session_factory() as s:
        await keep_artifact(
            s,
            app.state.artifact_store,
            task_id=task_id,
            tenant_id="default",
            kind="screenshot",
            step=1,
            content_type="image/jpeg",
            data=jpeg,
        )
        await s.commit()

    steps = (await client.get(f"/v1/tasks/{task_id}/steps")).json()["steps"]
    assert [s["step"] for s in steps] == [1, 2]
    assert steps[0]["action"] == {"step": 1, "action": {"name": "goto"}}
    assert steps[0]["observation"]["url"] == "https://x/"
    assert [e["seq"] for e in steps[0]["events"]] == [2, 3, 4]
    assert steps[0]["screenshot_url"] == f"/v1/tasks/{task_id}/screenshots/1"
    assert steps[1]["screenshot_url"] is None and steps[1]["action"] is None

    shot = await client.get(steps[0]["screenshot_url"])
    assert shot.status_code == 200
    assert shot.headers["content-type"] == "image/jpeg"
    assert shot.content == jpeg
    assert (await client.get(f"/v1/tasks/{task_id}/screenshots/2")).status_code == 404


async def test_health_readiness_and_metrics(
    client: httpx.AsyncClient, app: FastAPI, dispatcher: RecordingDispatcher
) -> None:
    assert (await client.get("/healthz")).json() == {"status": "ok"}
    ready = await client.get("/readyz")
    assert ready.status_code == 200
    assert ready.json()["checks"]["database"]["ok"] is True
    assert "redis" not in ready.json()["checks"]

    async def browser_down() -> bool:
        return False

    async def browser_broken() -> bool:
        raise RuntimeError("chromium crashed")

    app.state.readiness_checks["browser"] = browser_down
    app.state.readiness_checks["pool"] = browser_broken
    not_ready = await client.get("/readyz")
    assert not_ready.status_code == 503
    checks = not_ready.json()["checks"]
    assert checks["database"]["ok"] is True
    assert checks["browser"] == {"ok": False, "detail": "check returned false"}
    assert "chromium crashed" in checks["pool"]["detail"]

    dispatcher.depth = 7
    await client.post("/v1/tasks", json=BODY)
    scrape = await client.get("/metrics")
    assert scrape.status_code == 200
    assert scrape.headers["content-type"].startswith("text/plain")
    assert "webagent_queue_depth 7.0" in scrape.text
    assert "webagent_tasks_submitted_total" in scrape.text


async def test_client_disconnect_releases_the_subscription(
    app: FastAPI, bus: MemoryEventBus
) -> None:
    async with live_server(app) as base, httpx.AsyncClient(base_url=base, timeout=30) as client:
        task_id = await _new_task(client)
        await add_event(app, bus, task_id, 1, "task.started")
        gauge_before = metrics.sample_value("webagent_sse_connections")
        async with client.stream("GET", f"/v1/tasks/{task_id}/events") as resp:
            assert (await anext(read_sse(resp)))["json"]["seq"] == 1
            assert bus.subscriber_count(task_id) == 1
        for _ in range(200):  # the server sees the disconnect asynchronously
            if bus.subscriber_count(task_id) == 0:
                break
            await asyncio.sleep(0.05)
        assert bus.subscriber_count(task_id) == 0
        assert metrics.sample_value("webagent_sse_connections") == gauge_before
