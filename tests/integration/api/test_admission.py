"""Admission in one step (issue 36, app/api/admission.py): `admit()` alone refuses a bad body
with the same problem details as `POST /v1/tasks`, and the endpoint stores what it returns."""

from __future__ import annotations

import base64
import json
from dataclasses import replace
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError

from app.api import tasks as tasks_api
from app.api.admission import Admitted, admit
from app.api.inputs import validation_error_handler
from app.contracts import DEFAULT_TENANT
from app.db import repositories

FILE = {"name": "a.txt", "content_base64": base64.b64encode(b"hi").decode()}

BAD_BODIES: dict[str, dict[str, Any]] = {
    "shape": {"instruction": "   "},
    "limits": {"instruction": "x", "max_steps": 101},
    "url policy": {"instruction": "x", "start_url": "http://127.0.0.1:9/"},
    "webhook": {"instruction": "x", "webhook_url": "https://example.com/hook"},
    "webhook events": {"instruction": "x", "webhook_events": ["task.finished"]},
    "attachments": {"instruction": "x", "attachments": [FILE, FILE]},
    "output schema": {"instruction": "x", "output_schema": {"type": 5}},
    "profile": {"instruction": "x", "profile": "nope"},
}


async def admit_problem(app: FastAPI, body: dict[str, Any]) -> dict[str, Any]:
    """The problem details of admit() called alone, rendered by the service's 422 handler."""
    async with app.state.session_factory() as session:
        with pytest.raises(RequestValidationError) as refused:
            await admit(body, DEFAULT_TENANT, settings=app.state.settings, session=session)
    scope = {"type": "http", "method": "POST", "path": "/v1/tasks", "headers": []}
    response = await validation_error_handler(Request(scope), refused.value)
    return dict(json.loads(bytes(response.body)))


@pytest.mark.parametrize("case", sorted(BAD_BODIES))
async def test_admit_alone_refuses_a_body_as_the_endpoint_does(
    app: FastAPI, client: httpx.AsyncClient, case: str
) -> None:
    body = BAD_BODIES[case]
    endpoint = await client.post("/v1/tasks", json=body)
    assert endpoint.status_code == 422, endpoint.text
    assert await admit_problem(app, body) == endpoint.json()


async def test_the_endpoint_stores_what_admit_returns_and_nothing_else(
    app: FastAPI, client: httpx.AsyncClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    admitted: list[Admitted] = []

    async def admit_and_change(body: Any, tenant: str, **kw: Any) -> Admitted:
        real = await admit(body, tenant, **kw)
        extra = {**real.row["extra"], "max_tokens": 777}
        changed = replace(real, row={**real.row, "metadata": {"by": "admit"}, "extra": extra})
        admitted.append(changed)
        return changed

    monkeypatch.setattr(tasks_api, "admit", admit_and_change)
    body = {"instruction": "x", "metadata": {"by": "client"}, "max_tokens": 5}
    out = (await client.post("/v1/tasks", json=body)).json()
    assert out["metadata"] == {"by": "admit"}
    async with app.state.session_factory() as session:
        task = await repositories.get_task(session, task_id=out["id"], tenant_id=DEFAULT_TENANT)
    assert task is not None
    (row,) = [a.row for a in admitted]
    assert task.max_tokens == 777 and task.request_hash == row["request_hash"]
    assert (task.instruction, task.max_steps, task.timeout_s) == (
        row["instruction"],
        row["max_steps"],
        row["timeout_s"],
    )
    assert {k: getattr(task, k) for k in row["task_policy"]} == row["task_policy"]
