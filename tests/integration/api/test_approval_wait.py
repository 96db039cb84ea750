"""How long an approval waits is decided at admission and stated on the task (issue 31
item 5): an API task nobody is set to answer waits the short unattended time, a task with a
webhook for approval.requested or its own approval_timeout_s waits that; the worker's gate
uses the stored value."""

from __future__ import annotations

from typing import Any

import httpx
from fastapi import FastAPI

from app.db import repositories
from app.settings import Settings
from workers.adapters.approval_gate import approval_gate


async def _wait_of(client: httpx.AsyncClient, body: dict[str, Any]) -> float:
    created = await client.post("/v1/tasks", json={"instruction": "send the form", **body})
    assert created.status_code == 202, created.text
    shown = await client.get(f"/v1/tasks/{created.json()['id']}")
    return float(shown.json()["approval_timeout_s"])


async def test_an_unattended_task_waits_briefly_and_says_so(
    app: FastAPI, client: httpx.AsyncClient
) -> None:
    settings: Settings = app.state.settings
    assert await _wait_of(client, {}) == settings.approval_unattended_timeout_s == 60.0
    assert await _wait_of(client, {"approval_timeout_s": 1800}) == 1800.0


async def test_a_webhook_for_approvals_gets_the_full_wait(app: FastAPI) -> None:
    from app.api.admission import approval_wait
    from app.api.schemas import TaskCreate

    settings: Settings = app.state.settings
    hooked = TaskCreate(
        instruction="x", webhook_url="https://hooks.test/a", webhook_events=["approval.requested"]
    )
    finished_only = TaskCreate(instruction="x", webhook_url="https://hooks.test/a")
    assert approval_wait(hooked, settings) == settings.approval_timeout_s == 900.0
    assert approval_wait(finished_only, settings) == settings.approval_unattended_timeout_s


async def test_the_gate_waits_what_the_task_states(app: FastAPI, client: httpx.AsyncClient) -> None:
    created = await client.post("/v1/tasks", json={"instruction": "x", "approval_timeout_s": 42})
    async with app.state.session_factory() as s:
        task = await repositories.get_task(s, task_id=created.json()["id"])
        assert task is not None
        spec = repositories.task_to_spec(task)
    gate = approval_gate(app.state.session_factory, app.state.settings, spec, sink=None)  # type: ignore[arg-type]
    assert gate.config.timeout_s == 42.0
