"""Approval routes: list, decide once (409 after), tenant isolation (404), scopes (403),
expiry, the request screenshot, and the task's approval_policy field."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from fastapi import FastAPI

from app.auth import Scope
from app.db import repositories
from app.db.migrate import upgrade
from app.db.repo_approvals import create_approval
from app.db.types import utcnow
from app.store.records import keep_artifact
from tests.integration.api.conftest import finish
from tests.integration.api.test_auth_keys import BODY, bearer, keyed_app, new_key

W, R = Scope.tasks_write, Scope.tasks_read
JPEG = b"\xff\xd8approval\xff\xd9"


@pytest.fixture(params=["sqlite", "postgres"])
def any_db(request: pytest.FixtureRequest) -> str:
    """The module's tests on a fresh SQLite file and on the session's Postgres database."""
    if request.param == "sqlite":
        return str(request.getfixturevalue("db_url"))
    pg: str = request.getfixturevalue("postgres_url")
    upgrade(pg)
    return pg


async def pause(app: FastAPI, task_id: str, *, expires_in_s: float = 600, shot: bool = True) -> str:
    """What the worker's gate writes: a pending approval (with its screenshot artifact)."""
    async with app.state.session_factory() as s:
        task = await repositories.get_task(s, task_id=task_id)
        assert task is not None
        details: dict[str, Any] = {"url": "https://93.184.215.14/", "element": 'button "Pay"'}
        if shot:
            details["screenshot"] = await keep_artifact(
                s,
                app.state.artifact_store,
                task_id=task_id,
                tenant_id=task.tenant_id,
                kind="approval",
                step=1,
                content_type="image/jpeg",
                data=JPEG,
            )
            details["screenshot_step"] = 1
        row = await create_approval(
            s,
            task_id=task_id,
            tenant_id=task.tenant_id,
            kind="sensitive_action",
            reason="click on button \"Pay\" ('pay')",
            details=details,
            expires_at=utcnow() + timedelta(seconds=expires_in_s),
        )
        await s.commit()
        return row.id


async def test_list_decide_once_and_screenshot(any_db: str) -> None:
    async with keyed_app(any_db) as (app, c):
        writer = await new_key(app, "acme", W, R)
        created = await c.post("/v1/tasks", json=BODY, headers=bearer(writer))
        assert created.json()["approval_policy"] == "sensitive"  # the default
        tid = created.json()["id"]
        aid = await pause(app, tid)
        listed = await c.get(f"/v1/tasks/{tid}/approvals", headers=bearer(writer))
        assert listed.status_code == 200
        [item] = listed.json()["items"]
        assert (
            item["id"] == aid and item["status"] == "pending" and item["kind"] == "sensitive_action"
        )
        assert item["element"] == 'button "Pay"' and item["url"] == "https://93.184.215.14/"
        shot = await c.get(item["screenshot_url"], headers=bearer(writer))
        assert shot.status_code == 200 and shot.content == JPEG
        assert shot.headers["content-type"] == "image/jpeg"
        url = f"/v1/tasks/{tid}/approvals/{aid}"
        approved = await c.post(url, json={"decision": "approve"}, headers=bearer(writer))
        assert approved.status_code == 200, approved.text
        body = approved.json()
        assert body["status"] == "approved" and body["decided_by"].startswith("key:")
        assert body["decided_at"] is not None
        again = await c.post(url, json={"decision": "deny"}, headers=bearer(writer))
        assert again.status_code == 409 and "approved" in again.json()["detail"]
        aid2 = await pause(app, tid, shot=False)
        denied = await c.post(
            f"/v1/tasks/{tid}/approvals/{aid2}", json={"decision": "deny"}, headers=bearer(writer)
        )
        assert denied.json()["status"] == "denied" and denied.json()["screenshot_url"] is None
        no_shot = await c.get(
            f"/v1/tasks/{tid}/approvals/{aid2}/screenshot", headers=bearer(writer)
        )
        assert no_shot.status_code == 404


async def test_other_tenants_scopes_and_bad_input(any_db: str) -> None:
    async with keyed_app(any_db) as (app, c):
        writer = await new_key(app, "acme", W, R)
        reader = await new_key(app, "acme", R)
        other = await new_key(app, "globex", W, R)
        tid = (await c.post("/v1/tasks", json=BODY, headers=bearer(writer))).json()["id"]
        aid = await pause(app, tid)
        url = f"/v1/tasks/{tid}/approvals/{aid}"
        approve = {"decision": "approve"}
        assert (await c.get(f"/v1/tasks/{tid}/approvals", headers=bearer(other))).status_code == 404
        assert (await c.post(url, json=approve, headers=bearer(other))).status_code == 404
        assert (await c.get(f"{url}/screenshot", headers=bearer(other))).status_code == 404
        assert (await c.post(url, json=approve, headers=bearer(reader))).status_code == 403
        assert (await c.post(url, json=approve)).status_code == 401
        missing = f"/v1/tasks/{tid}/approvals/{'0' * 32}"
        assert (await c.post(missing, json=approve, headers=bearer(writer))).status_code == 404
        bad = await c.post(url, json={"decision": "maybe"}, headers=bearer(writer))
        assert bad.status_code == 422 and "decision" in bad.text
        assert (await c.post(url, json={}, headers=bearer(writer))).status_code == 422
        bad_id = await c.post(
            f"/v1/tasks/{tid}/approvals/a%00b", json=approve, headers=bearer(writer)
        )
        assert bad_id.status_code == 422
        # nothing above decided it
        listed = await c.get(f"/v1/tasks/{tid}/approvals", headers=bearer(reader))
        assert listed.json()["items"][0]["status"] == "pending"


async def test_an_expired_request_cannot_be_approved(any_db: str) -> None:
    async with keyed_app(any_db) as (app, c):
        writer = await new_key(app, "acme", W, R)
        tid = (await c.post("/v1/tasks", json=BODY, headers=bearer(writer))).json()["id"]
        aid = await pause(app, tid, expires_in_s=-1)
        [item] = (await c.get(f"/v1/tasks/{tid}/approvals", headers=bearer(writer))).json()["items"]
        assert item["status"] == "expired"
        late = await c.post(
            f"/v1/tasks/{tid}/approvals/{aid}", json={"decision": "approve"}, headers=bearer(writer)
        )
        assert late.status_code == 409 and "expired" in late.json()["detail"]


async def test_approval_policy_field(any_db: str) -> None:
    async with keyed_app(any_db) as (app, c):
        writer = await new_key(app, "acme", W, R)
        off = await c.post(
            "/v1/tasks", json={**BODY, "approval_policy": "none"}, headers=bearer(writer)
        )
        assert off.status_code == 202 and off.json()["approval_policy"] == "none"
        async with app.state.session_factory() as s:
            task = await repositories.get_task(s, task_id=off.json()["id"])
            assert task is not None
            assert repositories.task_to_spec(task).approval_policy == "none"
        bad = await c.post(
            "/v1/tasks", json={**BODY, "approval_policy": "all"}, headers=bearer(writer)
        )
        assert bad.status_code == 422 and "approval_policy" in bad.text


async def test_a_finished_tasks_request_is_expired(any_db: str) -> None:
    """The worker is gone (e.g. reaped): approving now would act on nothing."""
    async with keyed_app(any_db) as (app, c):
        writer = await new_key(app, "acme", W, R)
        tid = (await c.post("/v1/tasks", json=BODY, headers=bearer(writer))).json()["id"]
        aid = await pause(app, tid)
        await finish(app, tid, status="failed")
        [item] = (await c.get(f"/v1/tasks/{tid}/approvals", headers=bearer(writer))).json()["items"]
        assert item["status"] == "expired"
        late = await c.post(
            f"/v1/tasks/{tid}/approvals/{aid}", json={"decision": "approve"}, headers=bearer(writer)
        )
        assert late.status_code == 409 and "finished" in late.json()["detail"]
