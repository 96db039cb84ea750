"""issue 37 §5: `?q=` searches the task list as the viewer does, `GET /v1/tasks/{id}` carries
the task's model cost, a form-encoded submission is a 415 problem."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from app.main import create_app
from tests.integration.api.conftest import RecordingDispatcher, add_event, make_settings, running


async def test_q_finds_tasks_by_instruction_and_start_url(client: httpx.AsyncClient) -> None:
    mug = await client.post(
        "/v1/tasks", json={"instruction": "Price of the BLUE mug", "start_url": "http://1.1.1.1/"}
    )
    lamp = await client.post(
        "/v1/tasks",
        json={"instruction": "find a lamp", "start_url": "http://1.1.1.1/catalog/lamps"},
    )
    assert mug.status_code == lamp.status_code == 202

    async def found(q: str) -> list[str]:
        resp = await client.get("/v1/tasks", params={"q": q})
        assert resp.status_code == 200, resp.text
        return [t["id"] for t in resp.json()["items"]]

    assert await found("blue mug") == [mug.json()["id"]]
    assert await found("catalog/LAMPS") == [lamp.json()["id"]]
    assert await found("teapot") == []
    assert (await client.get("/v1/tasks", params={"q": "x" * 201})).status_code == 422


async def test_task_resource_carries_its_model_cost(db_url: str) -> None:
    prices = {"gpt-4o-mini": (0.15, 0.60)}
    app: FastAPI = create_app(
        make_settings(db_url, llm_prices=prices), dispatcher=RecordingDispatcher()
    )
    async with running(app) as client:
        body = {"instruction": "find it", "start_url": "http://1.1.1.1/"}
        task_id = (await client.post("/v1/tasks", json=body)).json()["id"]
        assert (await client.get(f"/v1/tasks/{task_id}")).json()["cost_usd"] == 0.0
        usage = {"model": "gpt-4o-mini", "input_tokens": 1_000_000, "output_tokens": 500_000}
        await add_event(app, None, task_id, 1, "llm.call", **usage)
        got = (await client.get(f"/v1/tasks/{task_id}")).json()
        assert got["cost_usd"] == pytest.approx(0.45)
        listed = (await client.get("/v1/tasks")).json()["items"]
        assert listed[0]["cost_usd"] == pytest.approx(0.45)
        await add_event(app, None, task_id, 2, "llm.call", model="unpriced", input_tokens=5)
        assert (await client.get(f"/v1/tasks/{task_id}")).json()["cost_usd"] is None


async def test_a_form_encoded_submission_is_415(client: httpx.AsyncClient) -> None:
    resp = await client.post(
        "/v1/tasks", data={"instruction": "find it", "start_url": "http://1.1.1.1/"}
    )
    assert resp.status_code == 415, resp.text
    assert resp.headers["content-type"].startswith("application/problem+json")
    assert "application/json" in resp.json()["detail"]
