"""`webagent tasks list | show | cancel` and `webagent profiles list | delete` against a live
server: output, --json, and exit codes that follow the task's status."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
from fastapi import FastAPI
from typer.testing import CliRunner, Result

from tests.integration.api.conftest import finish, live_server
from workers.cli.main import cli


async def invoke(*args: str) -> Result:
    return await asyncio.to_thread(CliRunner().invoke, cli, list(args))


async def submit(base: str, **body: Any) -> str:
    async with httpx.AsyncClient(base_url=base) as client:
        response = await client.post("/v1/tasks", json={"instruction": "find it", **body})
        response.raise_for_status()
        return str(response.json()["id"])


async def test_tasks_commands_report_status_through_exit_codes(app: FastAPI) -> None:
    async with live_server(app) as base:
        done_id = await submit(base, instruction="the finished one")
        queued_id = await submit(base, instruction="the queued one")
        await finish(app, done_id)

        listed = await invoke("tasks", "list", "--server", base, "--json")
        assert listed.exit_code == 0, listed.output
        page = json.loads(listed.output)
        assert [t["id"] for t in page["items"]] == [queued_id, done_id]
        text = await invoke("tasks", "list", "--server", base, "--status", "succeeded")
        assert done_id in text.output and queued_id not in text.output

        shown = await invoke("tasks", "show", done_id, "--server", base)
        assert shown.exit_code == 0 and "succeeded" in shown.output and "42" in shown.output
        pending = await invoke("tasks", "show", queued_id, "--server", base, "--json")
        assert pending.exit_code == 5 and json.loads(pending.output)["status"] == "queued"

        cancelled = await invoke("tasks", "cancel", queued_id, "--server", base)
        assert cancelled.exit_code == 0 and "cancelled" in cancelled.output
        after = await invoke("tasks", "show", queued_id, "--server", base)
        assert after.exit_code == 3
        again = await invoke("tasks", "cancel", done_id, "--server", base)
        assert again.exit_code == 2 and "409" in again.output  # already finished

        missing = await invoke("tasks", "show", "0" * 32, "--server", base)
        assert missing.exit_code == 4 and "not found" in missing.output
    unreachable = await invoke("tasks", "list", "--server", "http://127.0.0.1:1")
    assert unreachable.exit_code == 2 and "cannot reach" in unreachable.output


async def test_profiles_commands(app: FastAPI) -> None:
    async with live_server(app) as base:
        async with httpx.AsyncClient(base_url=base) as client:
            await client.post("/v1/profiles", json={"name": "shop"})
        listed = await invoke("profiles", "list", "--server", base, "--json")
        assert listed.exit_code == 0
        assert [p["name"] for p in json.loads(listed.output)] == ["shop"]
        text = await invoke("profiles", "list", "--server", base)
        assert "shop" in text.output and "never saved" in text.output
        deleted = await invoke("profiles", "delete", "shop", "--server", base)
        assert deleted.exit_code == 0 and "deleted shop" in deleted.output
        gone = await invoke("profiles", "delete", "shop", "--server", base)
        assert gone.exit_code == 4
