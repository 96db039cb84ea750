"""Every 4xx/5xx answers one body: RFC 9457 problem details with a stable `code` (issue 23 §5).

Measured on main before: `detail` was a string on 404/409/401 and a list on 422, no code, and
a 5,000-character instruction came back whole in the 422.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from fastapi import FastAPI

from app.main import create_app
from tests.integration.api.conftest import RecordingDispatcher, make_settings, running

PROBLEM = "application/problem+json"
MEMBERS = {"type", "title", "status", "detail", "instance", "code"}


def problem(resp: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"].startswith(PROBLEM), resp.headers["content-type"]
    body: dict[str, Any] = resp.json()
    assert set(body) >= MEMBERS, body
    assert body["status"] == status and body["code"] == code, body
    assert isinstance(body["detail"], str) and body["detail"], body
    assert body["type"].endswith(code), body
    return body


async def test_not_found_is_a_problem_with_the_request_path(client: httpx.AsyncClient) -> None:
    body = problem(await client.get("/v1/tasks/nope"), 404, "not_found")
    assert body["instance"] == "/v1/tasks/nope"
    assert body["title"] == "Not Found"
    assert "nope" in body["detail"]


async def test_unknown_route_and_wrong_method_are_problems(client: httpx.AsyncClient) -> None:
    problem(await client.get("/v1/no-such-thing"), 404, "not_found")
    problem(await client.delete("/v1/tasks"), 405, "method_not_allowed")


async def test_validation_lists_field_errors_and_cuts_the_echo(client: httpx.AsyncClient) -> None:
    resp = await client.post("/v1/tasks", json={"instruction": "x" * 5000, "max_steps": "many"})
    body = problem(resp, 422, "validation_failed")
    assert len(resp.content) < 2000, len(resp.content)
    errors = {tuple(e["loc"]): e for e in body["errors"]}
    assert ("body", "max_steps") in errors
    for error in body["errors"]:
        assert {"loc", "msg", "type"} <= set(error), error
    long_inputs = [e["input"] for e in body["errors"] if isinstance(e.get("input"), str)]
    assert all(len(text) <= 130 for text in long_inputs), long_inputs
    assert "max_steps" in body["detail"]


async def test_malformed_json_is_a_problem(client: httpx.AsyncClient) -> None:
    resp = await client.post(
        "/v1/tasks", content=b'{"instruction": ', headers={"content-type": "application/json"}
    )
    assert resp.status_code in (400, 422)
    body = resp.json()
    assert body["code"] in ("bad_request", "validation_failed"), body
    assert resp.headers["content-type"].startswith(PROBLEM)


async def test_conflict_has_its_own_code(client: httpx.AsyncClient) -> None:
    made = await client.post(
        "/v1/tasks", json={"instruction": "go", "start_url": "https://93.184.215.14/"}
    )
    task_id = made.json()["id"]
    assert (await client.post(f"/v1/tasks/{task_id}/cancel")).status_code == 202
    problem(await client.post(f"/v1/tasks/{task_id}/cancel"), 409, "conflict")


@pytest.fixture
async def keyed(db_url: str) -> Any:
    app: FastAPI = create_app(
        make_settings(db_url, api_keys_required=True, metrics_access="key"),
        dispatcher=RecordingDispatcher(),
    )
    async with running(app) as client:
        yield client


async def test_missing_key_is_unauthorized_problem(keyed: httpx.AsyncClient) -> None:
    resp = await keyed.get("/v1/tasks")
    body = problem(resp, 401, "unauthorized")
    assert resp.headers["www-authenticate"] == "Bearer"
    assert "API key" in body["detail"]
    problem(await keyed.get("/metrics"), 401, "unauthorized")  # the operator-pages guard
