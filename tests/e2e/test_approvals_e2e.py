"""Sensitive actions and challenges end to end over HTTP (issue 12 "Sensitive actions need a
person", issue 8 "Challenges and blocks") in both deployments, a scripted model and a
local site with a "Delete account" button and a Cloudflare-style interstitial.

The click pauses the task in awaiting_approval with an `approval.requested` event and a
screenshot; POST approve -> the click happens and the task succeeds; deny -> the site never
sees it. A challenge page is handed to a person: approve after clearing it -> the run goes
on; deny -> the task fails with `bot_blocked`.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route

from bench.support import serve
from tests.e2e.conftest import ROUTES, Service, submit, task_text, wait_for, wait_terminal
from tests.support.llm_server import Reply, tool_reply
from tests.support.policies import find_ref, last_tool_results, latest_observation

# the instruction does not ask for the deletion its policy then clicks: a person is asked
# (an instruction that asks for it authorises it: tests/unit/agent/test_consent.py)
DELETE = "look at my account page and press its button"
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
        self.url = ""

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


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    """The account site; the shared e2e model routes this module's instructions to `policy`."""
    ROUTES[DELETE] = ROUTES[MEMBERS] = policy
    account_site = Site()
    try:
        with serve(account_site.app()) as url:
            account_site.url = url
            yield account_site
    finally:
        for instruction in (DELETE, MEMBERS):
            ROUTES.pop(instruction, None)


def paused(client: httpx.Client, task_id: str) -> dict[str, Any]:
    """Wait for the pause; the one pending approval it waits on."""
    wait_for(client, task_id, ("awaiting_approval",))
    items = client.get(f"/v1/tasks/{task_id}/approvals").json()["items"]
    assert [i["status"] for i in items] == ["pending"], items
    return dict(items[0])


def events(service: Service, task_id: str) -> list[tuple[str, dict[str, Any]]]:
    """The task's stored events, in order, straight from the database."""
    return [(r.type, dict(r.data)) for r in service.stored_events(task_id)]


def decide(client: httpx.Client, task_id: str, approval_id: str, decision: str) -> None:
    answer = client.post(
        f"/v1/tasks/{task_id}/approvals/{approval_id}", json={"decision": decision}
    )
    assert answer.status_code == 200, answer.text


def test_delete_waits_for_approval_then_happens(service: Service, site: Site) -> None:
    with service.client() as client:
        before = site.deletions
        task_id = submit(client, DELETE, f"{site.url}/account")
        approval = paused(client, task_id)
        assert approval["kind"] == "sensitive_action"
        assert "Delete account" in approval["element"] and approval["url"].endswith("/account")
        shot = client.get(approval["screenshot_url"])
        assert shot.status_code == 200 and shot.content.startswith(b"\xff\xd8")
        assert site.deletions == before  # nothing happened while it waits
        decide(client, task_id, approval["id"], "approve")
        final = wait_terminal(client, task_id)
    assert final["status"] == "succeeded", final
    assert site.deletions == before + 1
    seen = events(service, task_id)
    requested = next(d for t, d in seen if t == "approval.requested")
    resolved = next(d for t, d in seen if t == "approval.resolved")
    assert requested["approval_id"] == approval["id"] and requested["screenshot"]
    assert resolved == {"approval_id": approval["id"], "decision": "approved", "by": "local"}
    types = [t for t, _ in seen]
    assert types.index("approval.resolved") < types.index("task.finished")


def test_denied_delete_never_reaches_the_site(service: Service, site: Site) -> None:
    with service.client() as client:
        before = site.deletions
        task_id = submit(client, DELETE, f"{site.url}/account")
        approval = paused(client, task_id)
        decide(client, task_id, approval["id"], "deny")
        final = wait_terminal(client, task_id)
        [item] = client.get(f"/v1/tasks/{task_id}/approvals").json()["items"]
    assert site.deletions == before
    assert final["result"]["answer"] == "not deleted: approval_denied", final
    assert item["status"] == "denied" and item["decided_by"] == "local"


def test_policy_none_does_not_pause(service: Service, site: Site) -> None:
    with service.client() as client:
        before = site.deletions
        task_id = submit(client, DELETE, f"{site.url}/account", approval_policy="none")
        final = wait_terminal(client, task_id)
        assert client.get(f"/v1/tasks/{task_id}/approvals").json()["items"] == []
    assert final["status"] == "succeeded" and site.deletions == before + 1


def test_challenge_is_handed_to_a_person(service: Service, site: Site) -> None:
    site.solved = False
    with service.client() as client:
        task_id = submit(client, MEMBERS, f"{site.url}/protected")
        approval = paused(client, task_id)
        assert approval["kind"] == "challenge" and "cloudflare_interstitial" in approval["element"]
        site.solved = True  # the person clears the challenge, then approves
        decide(client, task_id, approval["id"], "approve")
        final = wait_terminal(client, task_id)
    assert (final["status"], final["result"]["answer"]) == ("succeeded", "in"), final


def test_refused_challenge_fails_bot_blocked(service: Service, site: Site) -> None:
    site.solved = False
    with service.client() as client:
        task_id = submit(client, MEMBERS, f"{site.url}/protected")
        approval = paused(client, task_id)
        decide(client, task_id, approval["id"], "deny")
        final = wait_terminal(client, task_id)
    assert (final["status"], final["error"]) == ("failed", "bot_blocked"), final
