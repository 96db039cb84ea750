"""DELETE /v1/tasks/{id} and `webagent tasks delete`: the task and its data go, learnings
stay, tenants and scopes are enforced, errors are RFC 9457 problems (issue 25)."""

from __future__ import annotations

import asyncio

from fastapi import FastAPI
from sqlalchemy import func, select
from typer.testing import CliRunner

from app import metrics
from app.db import repositories
from app.db.models import Artifact, Fact, Task, TaskEvent
from app.store.records import keep_artifact, task_prefix
from tests.integration.api.conftest import add_event, finish, live_server
from tests.integration.api.test_auth_keys import BODY, A, R, W, bearer, keyed_app, new_key
from workers.cli.main import cli


async def _with_data(app: FastAPI, task_id: str) -> None:
    """Events, a screenshot and a learned fact, as a run leaves them."""
    await add_event(app, None, task_id, 1, "task.started")
    await add_event(app, None, task_id, 2, "step.started")
    async with app.state.session_factory() as s:
        task = await repositories.get_task(s, task_id=task_id)
        assert task is not None
        await keep_artifact(
            s,
            app.state.artifact_store,
            task_id=task_id,
            tenant_id=task.tenant_id,
            kind="screenshot",
            step=1,
            content_type="image/jpeg",
            data=b"\xff\xd8jpeg",
        )
        await repositories.add_fact(
            s,
            task_id=task_id,
            tenant_id=task.tenant_id,
            domain="93.184.215.14",
            category="site",
            text="prices are in the table",
            confidence=0.9,
        )
        await s.commit()


async def _rows(app: FastAPI, model: object, task_id: str) -> int:
    column = model.task_id if model is not Task else Task.id  # type: ignore[attr-defined]
    async with app.state.session_factory() as s:
        return int((await s.execute(select(func.count()).where(column == task_id))).scalar_one())


async def test_delete_removes_the_task_and_its_data_and_keeps_learnings(db_url: str) -> None:
    async with keyed_app(db_url) as (app, c):
        writer = await new_key(app, "acme", W, R)
        tid = (await c.post("/v1/tasks", json=BODY, headers=bearer(writer))).json()["id"]
        await _with_data(app, tid)
        await finish(app, tid)
        before = metrics.sample_value(
            "webagent_data_deleted_rows_total", {"table": "task_events", "reason": "request"}
        )
        store = app.state.artifact_store
        key = f"{task_prefix(tid)}screenshot/1"
        assert await store.exists(key)
        gone = await c.delete(f"/v1/tasks/{tid}", headers=bearer(writer))
        assert not await store.exists(key)  # the bytes go with the rows
        assert gone.status_code == 204 and gone.content == b""
        for model in (Task, TaskEvent, Artifact):
            assert await _rows(app, model, tid) == 0, model
        async with app.state.session_factory() as s:
            facts = list((await s.execute(select(Fact.text))).scalars())
        assert facts == ["prices are in the table"]  # learnings are not task data
        after = metrics.sample_value(
            "webagent_data_deleted_rows_total", {"table": "task_events", "reason": "request"}
        )
        assert after - before == 2
        again = await c.get(f"/v1/tasks/{tid}", headers=bearer(writer))
        assert again.status_code == 404
        twice = await c.delete(f"/v1/tasks/{tid}", headers=bearer(writer))
        assert twice.status_code == 404
        assert twice.headers["content-type"].startswith("application/problem+json")
        assert twice.json()["status"] == 404


async def test_delete_is_tenant_scoped_and_needs_the_write_scope(db_url: str) -> None:
    async with keyed_app(db_url) as (app, c):
        writer = await new_key(app, "acme", W, R)
        reader = await new_key(app, "acme", R)
        other = await new_key(app, "globex", W, R)
        admin = await new_key(app, "acme", A)
        tid = (await c.post("/v1/tasks", json=BODY, headers=bearer(writer))).json()["id"]
        assert (await c.delete(f"/v1/tasks/{tid}")).status_code == 401
        refused = await c.delete(f"/v1/tasks/{tid}", headers=bearer(reader))
        assert refused.status_code == 403
        assert refused.headers["content-type"].startswith("application/problem+json")
        foreign = await c.delete(f"/v1/tasks/{tid}", headers=bearer(other))
        assert foreign.status_code == 404  # another tenant's task is indistinguishable from none
        assert await _rows(app, Task, tid) == 1
        bad = await c.delete("/v1/tasks/not%20an%20id", headers=bearer(writer))
        assert bad.status_code == 422
        assert (await c.delete(f"/v1/tasks/{tid}", headers=bearer(admin))).status_code == 204


async def test_deleting_a_live_task_cancels_it(db_url: str) -> None:
    async with keyed_app(db_url) as (app, c):
        writer = await new_key(app, "acme", W, R)
        tid = (await c.post("/v1/tasks", json=BODY, headers=bearer(writer))).json()["id"]
        async with app.state.session_factory() as s:
            await repositories.mark_running(s, task_id=tid, worker_id="w1")
            await s.commit()
        assert (await c.delete(f"/v1/tasks/{tid}", headers=bearer(writer))).status_code == 204
        async with app.state.session_factory() as s:
            # the worker's cancel check: a row that is gone reads as a cancel
            assert await repositories.is_cancel_requested(s, task_id=tid)
            assert not await repositories.heartbeat(s, task_id=tid, worker_id="w1")


async def test_cli_tasks_delete(app: FastAPI) -> None:
    async with live_server(app) as base:
        async with app.state.session_factory() as s:
            task, _ = await repositories.create_task(
                s,
                tenant_id="default",
                instruction="x",
                start_url=None,
                max_steps=5,
                timeout_s=60.0,
                allowed_domains=[],
                metadata={},
            )
            await s.commit()
        runner = CliRunner()
        done = await asyncio.to_thread(
            runner.invoke, cli, ["tasks", "delete", task.id, "--server", base]
        )
        assert done.exit_code == 0 and f"{task.id} deleted" in done.output
        missing = await asyncio.to_thread(
            runner.invoke, cli, ["tasks", "delete", task.id, "--server", base]
        )
        assert missing.exit_code == 4 and "not found" in missing.output
