"""Task webhooks: a local receiver checks the Standard Webhooks signature (computed here,
independently of app/webhooks.py) and stays down for two attempts; the outbox retries with
backoff, the attempts show on the task, and POST .../webhook/retry sends it again."""

from __future__ import annotations

import asyncio
import json
from datetime import timedelta
from typing import Any

import pytest
from fastapi import FastAPI

from app.db import repo_approvals, repositories
from app.db.types import utcnow
from app.main import create_app
from app.settings import Settings
from tests.integration.api.conftest import RecordingDispatcher, finish, make_settings, running
from tests.support.webhook_receiver import SECRET, Receiver, signature_ok


def hook_settings(db_url: str, **kw: Any) -> Settings:
    base: dict[str, Any] = {
        "webhook_secret": SECRET,
        "webhook_retry_base_s": 0.05,
        "webhook_poll_interval_s": 0.05,
        "allow_private_networks": True,  # the receiver listens on 127.0.0.1
    }
    return make_settings(db_url, **{**base, **kw})


async def wait_for(predicate: Any, timeout: float = 20.0) -> None:
    async with asyncio.timeout(timeout):
        while not predicate():
            await asyncio.sleep(0.02)


@pytest.fixture
def hook_app(db_url: str, dispatcher: RecordingDispatcher) -> FastAPI:
    return create_app(hook_settings(db_url), dispatcher=dispatcher)


async def test_webhook_is_signed_retried_across_an_outage_and_recorded(hook_app: FastAPI) -> None:
    with Receiver(down_for=2) as receiver:
        async with running(hook_app) as client:
            body = {"instruction": "find it", "webhook_url": receiver.url}
            created = (await client.post("/v1/tasks", json=body)).json()
            assert created["webhook_url"] == receiver.url
            assert created["webhook"]["state"] == "pending" and created["webhook"]["attempts"] == 0
            await asyncio.sleep(0.2)
            assert receiver.requests == []  # nothing is sent before the task ends
            await finish(hook_app, created["id"])
            await wait_for(lambda: len(receiver.requests) >= 3)
            # the third attempt is recorded after the receiver answered it
            while (task := (await client.get(f"/v1/tasks/{created['id']}")).json())["webhook"][
                "state"
            ] == "pending":
                await asyncio.sleep(0.02)

        statuses = [a["status_code"] for a in task["webhook"]["log"]]
        assert statuses == [503, 503, 200] and task["webhook"]["state"] == "delivered"
        assert task["webhook"]["attempts"] == 3 and task["webhook"]["delivered_at"]
        ids = {headers["webhook-id"] for headers, _ in receiver.requests}
        assert len(ids) == 1  # one message, retried: receivers deduplicate on webhook-id
        for headers, raw in receiver.requests:
            assert signature_ok(headers, raw)
            assert not signature_ok({**headers, "webhook-id": "forged"}, raw)
        sent = json.loads(receiver.requests[-1][1])
        assert sent["type"] == "task.finished"
        assert sent["data"]["id"] == created["id"] and sent["data"]["status"] == "succeeded"
        assert sent["data"]["result"]["answer"] == "42"


async def test_retry_route_sends_again_and_gives_up_after_max_attempts(db_url: str) -> None:
    app = create_app(
        hook_settings(db_url, webhook_max_attempts=2), dispatcher=RecordingDispatcher()
    )
    with Receiver(down_for=2) as receiver:
        async with running(app) as client:
            created = (
                await client.post(
                    "/v1/tasks", json={"instruction": "x", "webhook_url": receiver.url}
                )
            ).json()
            early = await client.post(f"/v1/tasks/{created['id']}/webhook/retry")
            assert early.status_code == 409  # still queued
            await finish(app, created["id"], status="failed")
            await wait_for(lambda: len(receiver.requests) >= 2)

            async def state() -> dict[str, Any]:
                return (await client.get(f"/v1/tasks/{created['id']}")).json()["webhook"]

            while (hook := await state())["state"] == "pending":
                await asyncio.sleep(0.02)
            assert hook["state"] == "failed" and hook["attempts"] == 2
            await asyncio.sleep(0.3)
            assert len(receiver.requests) == 2  # gave up: no third attempt on its own

            retried = await client.post(f"/v1/tasks/{created['id']}/webhook/retry")
            assert retried.status_code == 202 and retried.json()["state"] == "pending"
            await wait_for(lambda: len(receiver.requests) == 3)
            while (hook := await state())["state"] == "pending":
                await asyncio.sleep(0.02)
            assert hook["state"] == "delivered" and len(hook["log"]) == 3
            missing = await client.post("/v1/tasks/" + "0" * 32 + "/webhook/retry")
            assert missing.status_code == 404


async def test_webhook_needs_a_secret_and_an_allowed_target(db_url: str) -> None:
    open_app = create_app(
        hook_settings(db_url, webhook_secret=""), dispatcher=RecordingDispatcher()
    )
    async with running(open_app) as client:
        r = await client.post(
            "/v1/tasks", json={"instruction": "x", "webhook_url": "https://e.test/"}
        )
        assert r.status_code == 422 and "WEBAGENT_WEBHOOK_SECRET" in r.text
    strict = create_app(
        hook_settings(db_url, allow_private_networks=False), dispatcher=RecordingDispatcher()
    )
    async with running(strict) as client:
        body = {"instruction": "x", "webhook_url": "http://127.0.0.1:9/hook"}
        r = await client.post("/v1/tasks", json=body)
        assert r.status_code == 422
        detail = r.json()["errors"][0]
        assert detail["loc"] == ["body", "webhook_url"]
        assert "loopback" in detail["msg"] and "WEBAGENT_ALLOW_PRIVATE_NETWORKS" in detail["msg"]
        r = await client.post(
            "/v1/tasks", json={"instruction": "x", "start_url": "http://127.0.0.1/"}
        )
        assert r.status_code == 422 and "WEBAGENT_ALLOW_PRIVATE_NETWORKS" in r.text


async def test_redirects_are_not_followed(db_url: str) -> None:
    app = create_app(
        hook_settings(db_url, webhook_max_attempts=1), dispatcher=RecordingDispatcher()
    )
    with Receiver(down_for=5, down_status=307) as receiver:
        async with running(app) as client:
            body = {"instruction": "x", "webhook_url": receiver.url}
            created = (await client.post("/v1/tasks", json=body)).json()
            await finish(app, created["id"])
            await wait_for(lambda: len(receiver.requests) >= 1)

            async def state() -> dict[str, Any]:
                return (await client.get(f"/v1/tasks/{created['id']}")).json()["webhook"]

            while (hook := await state())["state"] == "pending":
                await asyncio.sleep(0.02)
    assert hook["state"] == "failed" and hook["log"][0]["status_code"] == 307
    assert [h.get("host") for h, _ in receiver.requests] == [receiver.origin.split("//")[1]]
    assert len(receiver.requests) == 1  # the Location was not requested


async def start_and_ask(app: FastAPI, task_id: str) -> str:
    """What a worker does: claim the task, then pause it for a person."""
    async with app.state.session_factory() as s:
        await repositories.mark_running(s, task_id=task_id, worker_id="test")
        await s.commit()
    async with app.state.session_factory() as s:
        row = await repo_approvals.create_approval(
            s,
            task_id=task_id,
            tenant_id="default",
            kind="sensitive_action",
            reason="submit the order form",
            details={"url": "https://shop.test/checkout"},
            expires_at=utcnow() + timedelta(minutes=9),
        )
        await s.commit()
        return row.id


async def test_started_and_approval_events_reach_the_hook_when_chosen(hook_app: FastAPI) -> None:
    """Issue 23 §4: a person was never told a run needs them (task.finished only)."""
    chosen = ["task.started", "approval.requested", "task.finished"]
    with Receiver() as receiver:
        async with running(hook_app) as client:
            body = {"instruction": "buy it", "webhook_url": receiver.url, "webhook_events": chosen}
            created = (await client.post("/v1/tasks", json=body)).json()
            assert created["webhook_events"] == chosen
            approval_id = await start_and_ask(hook_app, created["id"])
            await wait_for(lambda: len(receiver.requests) >= 2)
            await finish(hook_app, created["id"])
            await wait_for(lambda: len(receiver.requests) >= 3)
            # the delivery is marked after the hook answered: wait for that row, not the POST
            async with asyncio.timeout(20):
                while True:
                    task = (await client.get(f"/v1/tasks/{created['id']}")).json()
                    if task["webhook"]["state"] != "pending":
                        break
                    await asyncio.sleep(0.05)
    sent = [json.loads(raw) for _, raw in receiver.requests]
    assert [m["type"] for m in sent] == chosen
    assert all(signature_ok(h, raw) for h, raw in receiver.requests)
    assert len({h["webhook-id"] for h, _ in receiver.requests}) == 3
    assert sent[0]["data"]["id"] == created["id"] and sent[0]["data"]["status"] == "running"
    asked = sent[1]["data"]
    assert asked["task_id"] == created["id"] and asked["approval"]["id"] == approval_id
    assert asked["approval"]["reason"] == "submit the order form"
    assert asked["approval"]["expires_at"] and asked["approval"]["kind"] == "sensitive_action"
    assert asked["links"]["run"] == f"/runs/{created['id']}"
    assert task["webhook"]["state"] == "delivered"  # the task.finished delivery


async def test_without_webhook_events_only_task_finished_is_sent(hook_app: FastAPI) -> None:
    with Receiver() as receiver:
        async with running(hook_app) as client:
            body = {"instruction": "buy it", "webhook_url": receiver.url}
            created = (await client.post("/v1/tasks", json=body)).json()
            assert created["webhook_events"] == ["task.finished"]
            await start_and_ask(hook_app, created["id"])
            await asyncio.sleep(0.3)
            assert receiver.requests == []
            await finish(hook_app, created["id"])
            await wait_for(lambda: len(receiver.requests) >= 1)
            await asyncio.sleep(0.2)
    assert [json.loads(raw)["type"] for _, raw in receiver.requests] == ["task.finished"]


async def test_unknown_webhook_event_is_refused(client: Any) -> None:
    body = {
        "instruction": "x",
        "webhook_url": "https://93.184.215.14/h",
        "webhook_events": ["nope"],
    }
    resp = await client.post("/v1/tasks", json=body)
    assert resp.status_code == 422 and resp.json()["errors"][0]["loc"][:2] == [
        "body",
        "webhook_events",
    ]
