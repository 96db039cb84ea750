"""Sensitive actions and challenges end to end over HTTP (issue 12 "Sensitive actions need a
person", issue 8 "Challenges and blocks") in both deployments, a scripted model and a
local site with a "Delete account" button and a Cloudflare-style interstitial.

The click pauses the task in awaiting_approval with an `approval.requested` event and a
screenshot; POST approve -> the click happens and the task succeeds; deny -> the site never
sees it. A challenge page is handed to a person: approve after clearing it -> the run goes
on; deny -> the task fails with `bot_blocked`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from app.db import create_engine, repositories, session_factory
from app.db.migrate import upgrade
from bench.support import serve
from tests.e2e.conftest import _settings, task_text, wait_for, wait_terminal, worker_process
from tests.support.llm_server import Reply, ScriptedLLMServer, tool_reply
from tests.support.policies import find_ref, last_tool_results, latest_observation
from workers.embedded import build_app

DELETE = "delete my account"
MEMBERS = "open the members area"
ACCOUNT = """<!doctype html><title>Account</title><h1>Your account</h1>
<form method="post" action="/account"><button type="submit">Delete account</button></form>"""
DELETED = "<!doctype html><title>Goodbye</title><h1>Account deleted</h1>"
CHALLENGE = """<!doctype html><title>Just a moment...</title>
<p>Checking your browser before accessing the site.</p>"""
MEMBERS_PAGE = "<!doctype html><title>Members</title><h1>Members area</h1>"


class Site:
    def __init__(self) -> None:
        self.deletions = 0
        self.solved = False

    async def account(self, request: Request) -> HTMLResponse:
        if request.method == "POST":
            self.deletions += 1
            return HTMLResponse(DELETED)
        return HTMLResponse(ACCOUNT)

    async def protected(self, request: Request) -> HTMLResponse:
        return HTMLResponse(MEMBERS_PAGE if self.solved else CHALLENGE)

    def app(self) -> Starlette:
        return Starlette(
            routes=[
                Route("/account", self.account, methods=["GET", "POST"]),
                Route("/protected", self.protected),
            ]
        )


def policy(request: dict[str, Any]) -> Reply:
    """Click "Delete account" (once), or report what the members page shows."""
    obs = latest_observation(request)
    errors = [r.get("error") for r in last_tool_results(request) if r.get("error")]
    if task_text(request).startswith(MEMBERS):
        found = "Members area" in obs
        return tool_reply(("done", {"answer": "in" if found else "blocked", "success": found}))
    if "Account deleted" in obs:
        return tool_reply(("done", {"answer": "deleted", "success": True}))
    if errors:
        return tool_reply(("done", {"answer": f"not deleted: {errors[0]}", "success": False}))
    return tool_reply(("click", {"ref": find_ref(obs, "button", "Delete account")}))


@dataclass
class Stack:
    base_url: str
    site_url: str
    site: Site
    database_url: str

    def client(self) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, timeout=30.0)


@pytest.fixture(scope="module", params=["embedded", "production"])
def stack(
    request: pytest.FixtureRequest, chromium_path: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    """Embedded (SQLite, in-process workers) or production (Postgres + Redis + a real
    `webagent worker` process): the gate waits on the database either way."""
    data_dir: Path = tmp_path_factory.mktemp(f"approvals-{request.param}")
    site = Site()
    with ScriptedLLMServer(policy) as llm, serve(site.app()) as site_url:
        if request.param == "embedded":
            settings = _settings(chromium_path, llm, data_dir, approval_poll_s=0.1)
            upgrade(settings.effective_database_url)
            with serve(build_app(settings)) as base_url:
                yield Stack(base_url, site_url, site, settings.effective_database_url)
            return
        pg: str = request.getfixturevalue("postgres_url")
        redis_url: str = request.getfixturevalue("redis_url")
        upgrade(pg)
        settings = _settings(chromium_path, llm, data_dir, database_url=pg, redis_url=redis_url)
        env = {
            "WEBAGENT_DATABASE_URL": pg,
            "WEBAGENT_REDIS_URL": redis_url,
            "WEBAGENT_LLM_BASE_URL": llm.base_url,
            "WEBAGENT_LLM_API_KEY": "e2e-key",
            "WEBAGENT_LLM_MAX_RETRIES": "0",
            "WEBAGENT_CHROMIUM_PATH": chromium_path,
            "WEBAGENT_ALLOW_PRIVATE_NETWORKS": "true",
            "WEBAGENT_BROWSER_POOL_SIZE": "1",
            "WEBAGENT_HEARTBEAT_INTERVAL_S": "1",
            "WEBAGENT_APPROVAL_POLL_S": "0.1",
            "WEBAGENT_DATA_DIR": str(data_dir),
        }
        with (
            worker_process(env, data_dir / "worker.log"),
            serve(build_app(settings)) as base_url,
        ):
            yield Stack(base_url, site_url, site, pg)


def submit(client: httpx.Client, instruction: str, url: str, **extra: Any) -> str:
    created = client.post("/v1/tasks", json={"instruction": instruction, "start_url": url, **extra})
    assert created.status_code == 202, created.text
    return str(created.json()["id"])


def paused(client: httpx.Client, task_id: str) -> dict[str, Any]:
    """Wait for the pause; the one pending approval it waits on."""
    wait_for(client, task_id, ("awaiting_approval",))
    items = client.get(f"/v1/tasks/{task_id}/approvals").json()["items"]
    assert [i["status"] for i in items] == ["pending"], items
    return dict(items[0])


def events(stack: Stack, task_id: str) -> list[tuple[str, dict[str, Any]]]:
    """The task's stored events, in order, straight from the database."""

    async def read() -> list[tuple[str, dict[str, Any]]]:
        engine = create_engine(stack.database_url)
        try:
            async with session_factory(engine)() as s:
                rows = await repositories.list_events(s, task_id=task_id, after_seq=0)
                return [(r.type, dict(r.data)) for r in rows]
        finally:
            await engine.dispose()

    return asyncio.run(read())


def decide(client: httpx.Client, task_id: str, approval_id: str, decision: str) -> None:
    answer = client.post(
        f"/v1/tasks/{task_id}/approvals/{approval_id}", json={"decision": decision}
    )
    assert answer.status_code == 200, answer.text


def test_delete_waits_for_approval_then_happens(stack: Stack) -> None:
    with stack.client() as client:
        before = stack.site.deletions
        task_id = submit(client, DELETE, f"{stack.site_url}/account")
        approval = paused(client, task_id)
        assert approval["kind"] == "sensitive_action"
        assert "Delete account" in approval["element"] and approval["url"].endswith("/account")
        shot = client.get(approval["screenshot_url"])
        assert shot.status_code == 200 and shot.content.startswith(b"\xff\xd8")
        assert stack.site.deletions == before  # nothing happened while it waits
        decide(client, task_id, approval["id"], "approve")
        final = wait_terminal(client, task_id)
    assert final["status"] == "succeeded", final
    assert stack.site.deletions == before + 1
    seen = events(stack, task_id)
    requested = next(d for t, d in seen if t == "approval.requested")
    resolved = next(d for t, d in seen if t == "approval.resolved")
    assert requested["approval_id"] == approval["id"] and requested["screenshot"]
    assert resolved == {"approval_id": approval["id"], "decision": "approved", "by": "local"}
    types = [t for t, _ in seen]
    assert types.index("approval.resolved") < types.index("task.finished")


def test_denied_delete_never_reaches_the_site(stack: Stack) -> None:
    with stack.client() as client:
        before = stack.site.deletions
        task_id = submit(client, DELETE, f"{stack.site_url}/account")
        approval = paused(client, task_id)
        decide(client, task_id, approval["id"], "deny")
        final = wait_terminal(client, task_id)
        [item] = client.get(f"/v1/tasks/{task_id}/approvals").json()["items"]
    assert stack.site.deletions == before
    assert final["result"]["answer"] == "not deleted: approval_denied", final
    assert item["status"] == "denied" and item["decided_by"] == "local"


def test_policy_none_does_not_pause(stack: Stack) -> None:
    with stack.client() as client:
        before = stack.site.deletions
        task_id = submit(client, DELETE, f"{stack.site_url}/account", approval_policy="none")
        final = wait_terminal(client, task_id)
        assert client.get(f"/v1/tasks/{task_id}/approvals").json()["items"] == []
    assert final["status"] == "succeeded" and stack.site.deletions == before + 1


def test_challenge_is_handed_to_a_person(stack: Stack) -> None:
    stack.site.solved = False
    with stack.client() as client:
        task_id = submit(client, MEMBERS, f"{stack.site_url}/protected")
        approval = paused(client, task_id)
        assert approval["kind"] == "challenge" and "cloudflare_interstitial" in approval["element"]
        stack.site.solved = True  # the person clears the challenge, then approves
        decide(client, task_id, approval["id"], "approve")
        final = wait_terminal(client, task_id)
    assert (final["status"], final["result"]["answer"]) == ("succeeded", "in"), final


def test_refused_challenge_fails_bot_blocked(stack: Stack) -> None:
    stack.site.solved = False
    with stack.client() as client:
        task_id = submit(client, MEMBERS, f"{stack.site_url}/protected")
        approval = paused(client, task_id)
        decide(client, task_id, approval["id"], "deny")
        final = wait_terminal(client, task_id)
    assert (final["status"], final["error"]) == ("failed", "bot_blocked"), final
