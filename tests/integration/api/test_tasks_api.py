"""Task routes on a migrated SQLite DB: submit, idempotency, validation, read, list, cancel."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
from fastapi import FastAPI

from app import metrics
from app.db import repositories
from app.dispatch import DispatchError
from app.main import ConfigurationError, create_app
from tests.integration.api.conftest import RecordingDispatcher, make_settings, running

BODY = {"instruction": "find the price of the blue mug", "start_url": "https://93.184.215.14/"}


async def test_submit_returns_202_location_and_enqueues(
    client: httpx.AsyncClient, dispatcher: RecordingDispatcher
) -> None:
    before = metrics.sample_value("webagent_tasks_submitted_total")
    resp = await client.post("/v1/tasks", json={**BODY, "metadata": {"ticket": "A-1"}})
    assert resp.status_code == 202, resp.text
    task = resp.json()
    assert resp.headers["location"] == f"/v1/tasks/{task['id']}"
    assert task["status"] == "queued"
    assert task["max_steps"] == 25 and task["timeout_s"] == 300.0  # settings defaults
    assert task["metadata"] == {"ticket": "A-1"}
    assert task["domain"] == "93.184.215.14"
    assert task["result"] == {"answer": None, "success": False, "data": None, "grounding": None}
    assert task["usage"] == {"steps": 0, "llm_calls": 0, "input_tokens": 0, "output_tokens": 0}
    assert dispatcher.enqueued == [(task["id"], 300.0)]
    assert metrics.sample_value("webagent_tasks_submitted_total") == before + 1

    got = await client.get(resp.headers["location"])
    assert got.status_code == 200
    assert got.json()["id"] == task["id"]
    assert got.json()["instruction"] == BODY["instruction"]


async def test_idempotency_key_same_body_same_task_different_body_409(
    client: httpx.AsyncClient, dispatcher: RecordingDispatcher
) -> None:
    headers = {"Idempotency-Key": "order-77"}
    first = await client.post("/v1/tasks", json=BODY, headers=headers)
    again = await client.post("/v1/tasks", json=BODY, headers=headers)
    assert first.status_code == again.status_code == 202
    assert first.json()["id"] == again.json()["id"]
    assert again.headers["location"] == first.headers["location"]
    assert len(dispatcher.enqueued) == 1  # the replay is not enqueued twice

    changed = await client.post("/v1/tasks", json={**BODY, "max_steps": 3}, headers=headers)
    assert changed.status_code == 409
    other_key = await client.post("/v1/tasks", json=BODY, headers={"Idempotency-Key": "x"})
    assert other_key.status_code == 202 and other_key.json()["id"] != first.json()["id"]


def _error_locs(resp: httpx.Response) -> list[list[str | int]]:
    assert resp.status_code == 422, resp.text
    return [e["loc"] for e in resp.json()["errors"]]


@pytest.mark.parametrize(
    ("body", "loc"),
    [
        ({"start_url": "https://93.184.215.14/"}, ["body", "instruction"]),
        ({"instruction": ""}, ["body", "instruction"]),
        ({"instruction": "   "}, ["body", "instruction"]),
        ({"instruction": "x" * 4001}, ["body", "instruction"]),
        ({"instruction": "go", "start_url": "ftp://93.184.215.14/"}, ["body", "start_url"]),
        ({"instruction": "go", "start_url": "file:///etc/passwd"}, ["body", "start_url"]),
        ({"instruction": "go", "start_url": "http://127.0.0.1:8000/"}, ["body", "start_url"]),
        ({"instruction": "go", "start_url": "http://169.254.169.254/"}, ["body", "start_url"]),
        ({"instruction": "go", "start_url": "http://localhost/"}, ["body", "start_url"]),
        ({"instruction": "go", "max_steps": 0}, ["body", "max_steps"]),
        ({"instruction": "go", "max_steps": 101}, ["body", "max_steps"]),
        ({"instruction": "go", "timeout_s": 0}, ["body", "timeout_s"]),
        ({"instruction": "go", "timeout_s": 86401}, ["body", "timeout_s"]),
        ({"instruction": "go", "metadata": {"blob": "x" * 20000}}, ["body", "metadata"]),
        ({"instruction": "go", "surprise": 1}, ["body", "surprise"]),
    ],
)
async def test_bad_input_is_422_naming_the_field(
    client: httpx.AsyncClient, dispatcher: RecordingDispatcher, body: dict, loc: list[str]
) -> None:
    resp = await client.post("/v1/tasks", json=body)
    assert loc in _error_locs(resp)
    assert dispatcher.enqueued == []


async def test_allowed_domains_must_admit_start_url(client: httpx.AsyncClient) -> None:
    body = {**BODY, "allowed_domains": ["example.com"]}
    resp = await client.post("/v1/tasks", json=body)
    assert ["body", "start_url"] in _error_locs(resp)
    assert "allowed domains" in resp.text


async def test_private_start_url_accepted_when_settings_allow(
    db_url: str, dispatcher: RecordingDispatcher
) -> None:
    app = create_app(make_settings(db_url, allow_private_networks=True), dispatcher=dispatcher)
    async with running(app) as client:
        resp = await client.post(
            "/v1/tasks", json={"instruction": "go", "start_url": "http://127.0.0.1:9/"}
        )
        assert resp.status_code == 202, resp.text
        bad = await client.post("/v1/tasks", json={"instruction": "go", "start_url": "gopher://x/"})
        assert ["body", "start_url"] in _error_locs(bad)


async def test_unknown_and_foreign_tasks_are_404(client: httpx.AsyncClient, app: FastAPI) -> None:
    assert (await client.get("/v1/tasks/doesnotexist")).status_code == 404
    async with app.state.session_factory() as s:
        foreign, _ = await repositories.create_task(
            s,
            tenant_id="someone-else",
            instruction="theirs",
            start_url=None,
            max_steps=5,
            timeout_s=60,
            allowed_domains=[],
            metadata={},
        )
        await s.commit()
    for path in ("", "/steps", "/events", "/screenshots/1"):
        assert (await client.get(f"/v1/tasks/{foreign.id}{path}")).status_code == 404, path
    assert (await client.post(f"/v1/tasks/{foreign.id}/cancel")).status_code == 404


async def test_history_filters_and_cursor(client: httpx.AsyncClient, app: FastAPI) -> None:
    ids = []
    for i, host in enumerate(["93.184.215.14", "93.184.215.15", "93.184.215.14", "1.1.1.1"]):
        resp = await client.post(
            "/v1/tasks", json={"instruction": f"t{i}", "start_url": f"http://{host}/"}
        )
        ids.append(resp.json()["id"])
    await client.post(f"/v1/tasks/{ids[1]}/cancel")

    page1 = (await client.get("/v1/tasks", params={"limit": 3})).json()
    assert [t["id"] for t in page1["items"]] == ids[::-1][:3]  # newest first
    assert page1["next_cursor"]
    page2 = (
        await client.get("/v1/tasks", params={"limit": 3, "cursor": page1["next_cursor"]})
    ).json()
    assert [t["id"] for t in page2["items"]] == [ids[0]]
    assert page2["next_cursor"] is None

    by_domain = (await client.get("/v1/tasks", params={"domain": "93.184.215.14"})).json()
    assert [t["id"] for t in by_domain["items"]] == [ids[2], ids[0]]
    cancelled = (await client.get("/v1/tasks", params={"status": "cancelled"})).json()
    assert [t["id"] for t in cancelled["items"]] == [ids[1]]
    future = (datetime.now(UTC) + timedelta(hours=1)).isoformat()
    assert (await client.get("/v1/tasks", params={"since": future})).json()["items"] == []
    past = (datetime.now(UTC) - timedelta(hours=1)).isoformat()
    assert len((await client.get("/v1/tasks", params={"since": past})).json()["items"]) == 4

    assert (await client.get("/v1/tasks", params={"status": "bogus"})).status_code == 422
    assert (await client.get("/v1/tasks", params={"limit": 0})).status_code == 422
    assert (await client.get("/v1/tasks", params={"limit": 201})).status_code == 422
    assert (await client.get("/v1/tasks", params={"cursor": "garbage!"})).status_code == 422


async def test_cancel_queued_task_is_cancelled_and_terminal_cancel_is_409(
    client: httpx.AsyncClient,
) -> None:
    before = metrics.sample_value("webagent_tasks_finished_total", {"status": "cancelled"})
    task = (await client.post("/v1/tasks", json=BODY)).json()
    resp = await client.post(f"/v1/tasks/{task['id']}/cancel")
    assert resp.status_code == 202
    assert resp.json()["status"] == "cancelled"
    assert resp.json()["cancel_requested"] is True
    assert (await client.get(f"/v1/tasks/{task['id']}")).json()["status"] == "cancelled"
    assert (await client.post(f"/v1/tasks/{task['id']}/cancel")).status_code == 409
    after = metrics.sample_value("webagent_tasks_finished_total", {"status": "cancelled"})
    assert after == before + 1


async def test_cancel_running_task_only_flags_it(client: httpx.AsyncClient, app: FastAPI) -> None:
    task = (await client.post("/v1/tasks", json=BODY)).json()
    async with app.state.session_factory() as s:
        await repositories.mark_running(s, task_id=task["id"], worker_id="w1")
        await s.commit()
    resp = await client.post(f"/v1/tasks/{task['id']}/cancel")
    assert resp.status_code == 202
    assert resp.json()["status"] == "running"
    assert resp.json()["cancel_requested"] is True


async def test_embedded_mode_without_dispatcher_is_a_configuration_error(db_url: str) -> None:
    app = create_app(make_settings(db_url))
    with pytest.raises(ConfigurationError, match="dispatcher"):
        async with running(app):
            pass


async def test_openapi_documents_the_routes(client: httpx.AsyncClient) -> None:
    spec = (await client.get("/openapi.json")).json()
    for path in (
        "/v1/tasks",
        "/v1/tasks/{task_id}",
        "/v1/tasks/{task_id}/events",
        "/v1/tasks/{task_id}/cancel",
        "/v1/tasks/{task_id}/steps",
        "/v1/tasks/{task_id}/screenshots/{step}",
        "/healthz",
        "/readyz",
    ):
        assert path in spec["paths"], path
    assert (await client.get("/docs")).status_code == 200


async def test_api_keys_required_scopes_tasks_to_the_key_tenant(
    db_url: str, dispatcher: RecordingDispatcher
) -> None:
    app = create_app(make_settings(db_url, api_keys_required=True), dispatcher=dispatcher)
    async with running(app) as client:
        async with app.state.session_factory() as s:
            _, key_a = await repositories.create_api_key(s, tenant_id="acme", name="ci")
            _, key_b = await repositories.create_api_key(s, tenant_id="globex", name="ci")
            await s.commit()
        assert (await client.post("/v1/tasks", json=BODY)).status_code == 401
        bad = {"Authorization": "Bearer nope"}
        assert (await client.get("/v1/tasks", headers=bad)).status_code == 401
        a = {"Authorization": f"Bearer {key_a}"}
        b = {"Authorization": f"Bearer {key_b}"}
        task = (await client.post("/v1/tasks", json=BODY, headers=a)).json()
        assert (await client.get(f"/v1/tasks/{task['id']}", headers=a)).status_code == 200
        assert (await client.get(f"/v1/tasks/{task['id']}", headers=b)).status_code == 404
        assert (await client.get("/v1/tasks", headers=b)).json()["items"] == []
        assert (await client.get("/healthz")).status_code == 200  # probes stay open


class BrokenDispatcher(RecordingDispatcher):
    async def enqueue(self, task_id: str, *, timeout_s: float) -> None:
        raise DispatchError("connection refused")


async def test_enqueue_failure_is_503_and_the_task_is_failed_not_left_queued(db_url: str) -> None:
    app = create_app(make_settings(db_url), dispatcher=BrokenDispatcher())
    async with running(app) as client:
        resp = await client.post("/v1/tasks", json=BODY)
        assert resp.status_code == 503
        assert resp.json()["unavailable"] == "queue"  # one 503 shape, as for the database
        assert int(resp.headers["Retry-After"]) > 0
        items = (await client.get("/v1/tasks")).json()["items"]
        assert [(t["status"], t["error"]) for t in items] == [("failed", "internal")]
        assert "connection refused" in items[0]["error_detail"]
