"""Artifact routes (app/api/artifacts.py): a task's artifacts listed with name and size, the
bytes of one by id served as an attachment, and another tenant's task or artifact is a 404."""

from __future__ import annotations

import httpx
import pytest
from fastapi import FastAPI

from app.db import repositories
from app.events import MemoryEventBus
from app.main import create_app
from app.store.records import keep_artifact
from tests.integration.api.conftest import RecordingDispatcher, make_settings, running
from tests.support.s3_server import S3Server
from tests.support.task_rows import add_task

PDF = b"%PDF-1.4 invoice \x00\xff"


async def _task(app: FastAPI, tenant: str) -> str:
    async with app.state.session_factory() as s:
        task = await add_task(s, tenant_id=tenant, instruction="get the invoice")
        await keep_artifact(
            s,
            app.state.artifact_store,
            task_id=task.id,
            tenant_id=tenant,
            kind="download",
            step=1,
            content_type="application/pdf",
            data=PDF,
            name="invoice <1>.pdf",
        )
        await keep_artifact(
            s,
            app.state.artifact_store,
            task_id=task.id,
            tenant_id=tenant,
            kind="screenshot",
            step=2,
            content_type="image/jpeg",
            data=b"\xff\xd8jpeg",
        )
        await s.commit()
        return str(task.id)


async def test_artifacts_are_listed_and_served_to_their_tenant_only(
    client: httpx.AsyncClient, app: FastAPI
) -> None:
    created = await client.post("/v1/tasks", json={"instruction": "mine"})
    assert created.status_code == 202, created.text
    async with app.state.session_factory() as s:
        mine = await repositories.get_task(s, task_id=created.json()["id"], tenant_id=None)
    assert mine is not None
    tenant = mine.tenant_id
    own = await _task(app, tenant)
    foreign = await _task(app, "someone-else")

    listed = (await client.get(f"/v1/tasks/{own}/artifacts")).json()
    assert [(a["kind"], a["name"], a["content_type"], a["size"], a["step"]) for a in listed] == [
        ("download", "invoice <1>.pdf", "application/pdf", len(PDF), 1),
        ("screenshot", None, "image/jpeg", 6, 2),
    ]
    got = await client.get(f"/v1/tasks/{own}/artifacts/{listed[0]['id']}")
    assert got.status_code == 200 and got.content == PDF
    assert (
        got.headers["content-disposition"] == "attachment; filename*=UTF-8''invoice%20%3C1%3E.pdf"
    )
    assert got.headers["content-security-policy"] == "sandbox"
    shot = await client.get(f"/v1/tasks/{own}/artifacts/{listed[1]['id']}")
    assert shot.content == b"\xff\xd8jpeg" and "content-disposition" not in shot.headers

    theirs = await client.get(f"/v1/tasks/{foreign}/artifacts")
    assert theirs.status_code == 404
    async with app.state.session_factory() as s:
        rows = await repositories.list_artifacts(s, task_id=foreign, kind="download")
    # another task's artifact id is not reachable through one's own task either
    assert (await client.get(f"/v1/tasks/{own}/artifacts/{rows[0].id}")).status_code == 404
    assert (await client.get(f"/v1/tasks/{foreign}/artifacts/{rows[0].id}")).status_code == 404


@pytest.mark.parametrize("presign_s", [0, 60])
async def test_s3_artifacts_stream_or_redirect_to_a_presigned_url(
    db_url: str,
    dispatcher: RecordingDispatcher,
    bus: MemoryEventBus,
    s3_server: S3Server,
    presign_s: int,
) -> None:
    settings = make_settings(
        db_url, **s3_server.settings(s3_server.new_bucket()), artifact_presign_s=presign_s
    )
    app = create_app(settings, dispatcher=dispatcher, bus=bus)
    async with running(app) as client:
        own = await _task(app, "default")
        foreign = await _task(app, "someone-else")
        listed = (await client.get(f"/v1/tasks/{own}/artifacts")).json()
        got = await client.get(f"/v1/tasks/{own}/artifacts/{listed[0]['id']}")
        shot = await client.get(f"/v1/tasks/{own}/screenshots/2")
        async with app.state.session_factory() as s:
            rows = await repositories.list_artifacts(s, task_id=foreign, kind="download")
        theirs = await client.get(f"/v1/tasks/{foreign}/artifacts/{rows[0].id}")
    assert theirs.status_code == 404  # the tenant check comes before any redirect
    if presign_s == 0:
        assert got.status_code == 200 and got.content == PDF
        assert shot.status_code == 200 and shot.content == b"\xff\xd8jpeg"
        return
    assert got.status_code == 307 and shot.status_code == 307
    location = got.headers["location"]
    assert location.startswith(s3_server.endpoint) and "X-Amz-Expires=60" in location
    async with httpx.AsyncClient() as http:
        assert (await http.get(location)).content == PDF
        assert (await http.get(shot.headers["location"])).content == b"\xff\xd8jpeg"
