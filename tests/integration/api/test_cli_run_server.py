"""`webagent run --server` (issue 23 §6): prints the task id and the viewer link, and takes
the output schema from a file, a profile, secrets by name from the environment (never their
values on the command line) and a webhook; `webagent profiles create`; `keys ... --json`."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from app.db import repositories
from app.events import MemoryEventBus
from app.main import create_app
from tests.integration.api.conftest import (
    RecordingDispatcher,
    add_event,
    finish,
    live_server,
    make_settings,
)
from tests.integration.api.test_cli_tasks import invoke
from tests.support.webhook_receiver import SECRET

SCHEMA = {"type": "object", "properties": {"price": {"type": "number"}}, "required": ["price"]}
HOOK = "https://93.184.215.14/hooks/webagent"


async def _finished_when_enqueued(
    app: FastAPI, bus: MemoryEventBus, sent: RecordingDispatcher
) -> str:
    async with asyncio.timeout(30):
        while not sent.enqueued:
            await asyncio.sleep(0.02)
    task_id = sent.enqueued[0][0]
    await finish(app, task_id)
    await add_event(app, bus, task_id, 1, "task.finished", status="succeeded", answer="42",
                    success=True)  # fmt: skip
    return task_id


async def test_run_server_prints_id_and_link_and_sends_every_option(
    db_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bus, sent = MemoryEventBus(), RecordingDispatcher()
    app = create_app(make_settings(db_url, webhook_secret=SECRET), dispatcher=sent, bus=bus)
    schema_file = tmp_path / "schema.json"
    schema_file.write_text(json.dumps(SCHEMA))
    monkeypatch.setenv("SHOP_PASSWORD", "hunter2-secret")
    async with live_server(app) as base:
        made = await invoke("profiles", "create", "shop", "--server", base)
        assert made.exit_code == 0 and "created shop" in made.output, made.output
        run = asyncio.create_task(
            invoke(
                "run", "price of the lamp", "--server", base, "--url", "https://93.184.215.14/",
                "--output-schema", str(schema_file), "--profile", "shop",
                "--secret", "SHOP_PASSWORD", "--webhook", HOOK,
                "--webhook-event", "approval.requested", "--webhook-event", "task.finished",
            )
        )  # fmt: skip
        task_id = await _finished_when_enqueued(app, bus, sent)
        result = await run
    assert result.exit_code == 0, result.output
    assert f"task {task_id}" in result.output
    assert f"{base}/runs/{task_id}" in result.output
    assert "hunter2-secret" not in result.output
    async with app.router.lifespan_context(app), app.state.session_factory() as s:
        task = await repositories.get_task(s, task_id=task_id)
    assert task is not None
    assert task.output_schema == SCHEMA and task.profile == "shop"
    assert list(task.secret_names) == ["SHOP_PASSWORD"] and task.secrets_sealed
    assert task.webhook_url == HOOK
    assert task.webhook_events == ["approval.requested", "task.finished"]


async def test_run_refuses_a_secret_missing_from_the_environment(
    app: FastAPI, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NOT_SET_ANYWHERE", raising=False)
    async with live_server(app) as base:
        result = await invoke("run", "x", "--server", base, "--secret", "NOT_SET_ANYWHERE")
    assert result.exit_code == 2 and "NOT_SET_ANYWHERE" in result.output


async def test_profiles_create_json(app: FastAPI) -> None:
    async with live_server(app) as base:
        made = await invoke("profiles", "create", "bank", "--server", base, "--json")
        assert made.exit_code == 0, made.output
        assert json.loads(made.stdout)["name"] == "bank"
        again = await invoke("profiles", "create", "bank", "--server", base)
        assert again.exit_code == 2 and "exists" in again.output
        async with httpx.AsyncClient(base_url=base) as client:
            names = [p["name"] for p in (await client.get("/v1/profiles")).json()["items"]]
    assert names == ["bank"]
