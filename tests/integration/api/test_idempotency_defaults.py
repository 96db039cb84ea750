"""Idempotency-Key: a body equal after defaults are applied is the same request."""

from __future__ import annotations

import asyncio
import uuid

import httpx
import pytest

from app.db.migrate import upgrade_async
from app.events import MemoryEventBus
from app.main import create_app
from tests.integration.api.conftest import RecordingDispatcher, live_server, make_settings

BODY = {"instruction": "buy a mug", "start_url": "https://93.184.215.14/shop"}


async def test_spelled_out_defaults_are_the_same_request(client: httpx.AsyncClient) -> None:
    headers = {"Idempotency-Key": "defaults-1"}
    first = await client.post("/v1/tasks", json=BODY, headers=headers)
    assert first.status_code == 202, first.text
    task = first.json()
    explicit = {**BODY, "max_steps": task["max_steps"], "timeout_s": task["timeout_s"]}
    again = await client.post("/v1/tasks", json=explicit, headers=headers)
    assert again.status_code in (200, 202), again.text
    assert again.json()["id"] == task["id"]
    other = {**BODY, "max_steps": task["max_steps"] + 1}
    assert (await client.post("/v1/tasks", json=other, headers=headers)).status_code == 409


@pytest.mark.services
async def test_twenty_concurrent_submits_with_one_key_make_one_task(postgres_url: str) -> None:
    """Issue 13, scenario 7: real concurrency (a live server, Postgres), half of the bodies
    spelling out the defaults: one task, enqueued once, every answer names it."""
    await upgrade_async(postgres_url)
    dispatcher = RecordingDispatcher()
    app = create_app(make_settings(postgres_url), dispatcher=dispatcher, bus=MemoryEventBus())
    key = {"Idempotency-Key": f"storm-{uuid.uuid4().hex}"}
    explicit = {**BODY, "max_steps": 25, "timeout_s": 300.0}  # make_settings' defaults
    async with live_server(app) as base, httpx.AsyncClient(base_url=base, timeout=30) as client:
        answers = await asyncio.gather(
            *(
                client.post("/v1/tasks", json=explicit if i % 2 else BODY, headers=key)
                for i in range(20)
            )
        )
    assert all(a.status_code in (200, 202) for a in answers), [a.text for a in answers]
    ids = {a.json()["id"] for a in answers}
    assert len(ids) == 1
    assert [task_id for task_id, _ in dispatcher.enqueued] == list(ids)
