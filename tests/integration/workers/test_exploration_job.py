"""Site exploration end to end (issue 21, seed 001 §2.3 / App. A.2 / A.4): `webagent explore`
against a live service whose embedded workers run the exploration job (no model call), the
API serves the WebsiteMem, and a task on that site then starts with its bookmarks (fenced)
and sees the explored "Shop" menu under its control in the first Worker request. Real
Chromium, the scripted LLM server, SQLite and Postgres."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker
from typer.testing import CliRunner

from app.contracts import TaskStatus
from app.db import repositories
from app.dispatch import InProcessDispatcher
from app.main import create_app
from tests.integration.api.conftest import live_server
from tests.integration.workers.conftest import new_task
from tests.integration.workers.test_jobs import embedded, wait_terminal
from tests.support.explore_site import ExploreSite
from tests.support.llm_server import Reply, ScriptedLLMServer, tool_reply
from workers.agent.memory.site_map import MENU_MARK
from workers.cli.main import cli
from workers.process.embedded import EmbeddedWorkers

pytestmark = [pytest.mark.browser, pytest.mark.services]
__all__ = ["embedded"]

Sessions = async_sessionmaker[AsyncSession]


@pytest.fixture
def site() -> Iterator[ExploreSite]:
    with ExploreSite() as served:
        yield served


def finish_at_once(request: dict[str, Any]) -> Reply:
    return tool_reply(("done", {"answer": "seen", "success": True}))


def _messages(request: dict[str, Any]) -> str:
    text = json.dumps(request.get("messages", []), ensure_ascii=False)
    return text.replace('\\"', '"').replace("\\n", "\n")


async def test_explore_then_a_task_uses_the_website_mem(
    embedded: tuple[EmbeddedWorkers, Any],
    sessions: Sessions,
    llm_server: ScriptedLLMServer,
    site: ExploreSite,
) -> None:
    workers, bus = embedded
    dispatcher = InProcessDispatcher(workers.submit, workers.depth)
    app = create_app(workers.settings, dispatcher=dispatcher, bus=bus)
    llm_server.requests.clear()
    async with live_server(app) as base:
        args = ["explore", site.url("/"), "--server", base, "--poll", "0.2", "--timeout", "120"]
        shown = await asyncio.to_thread(CliRunner().invoke, cli, args)
        assert shown.exit_code == 0, shown.output
        assert "exploration " in shown.output and "succeeded" in shown.output
        assert "/products/{} (item, 4 pages)" in shown.output
        assert 'button "Shop": link "All products", link "Gift cards"' in shown.output
        assert 'link "Log out" (auth)' in shown.output
        assert 'button "Delete account" (destructive)' in shown.output
        assert llm_server.requests == []  # exploration calls no model

        async with httpx.AsyncClient(base_url=base) as client:
            mem = (await client.get("/v1/sites/127.0.0.1")).json()
        assert mem["version"] >= 1 and mem["start_url"] == site.url("/")
        titles = {p["url"].removeprefix(site.origin): p["title"] for p in mem["pages"]}
        assert titles["/products"] == "All products" and titles["/products/3"] == "Blue teapot"
    assert "/logout" not in site.requests
    assert not [r for r in site.requests if r.startswith("POST")]

    llm_server.set_policy(finish_at_once)
    task_id = await new_task(sessions, start_url=site.url("/"), instruction="find gift cards")
    workers.submit(task_id)
    task = await wait_terminal(sessions, task_id)
    assert task.status == TaskStatus.succeeded, task.error_detail
    first = _messages(llm_server.requests[0])
    fences = [p.split("</page_content>")[0] for p in first.split('<page_content untrusted="true">')]
    assert any(
        "known pages (site exploration" in f and f"'All products' — {site.url('/products')}" in f
        for f in fences[1:]
    ), first
    assert "'All products' —" not in fences[0]  # only inside the fence
    shop_line = next(line for line in first.split("\n") if 'button "Shop"' in line)
    after = first.split(shop_line, 1)[1].lstrip("\n").split("\n", 1)[0]
    assert MENU_MARK in after and '"All products", "Gift cards"' in after

    async with sessions() as s:  # the exploration row finished with the version it wrote
        row = await repositories.latest_website_mem(s, tenant_id="default", domain="127.0.0.1")
        assert row is not None and row.pages == len(mem["pages"])
