"""The viewer with API keys required: sign-in form, HttpOnly cookie, tenant scoping, scopes,
and the cookie's limits (state-changing API calls need the viewer header and are refused
cross-site). The API's own checks decide everything; the cookie only stands in for the
`Authorization` header (app/web/auth.py)."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from dataclasses import dataclass

import httpx
import pytest
from fastapi import FastAPI
from playwright.async_api import expect

from app.auth import Scope
from app.db.migrate import upgrade_async
from app.db.repo_keys import create_api_key
from app.main import create_app
from app.web.auth import COOKIE, VIEWER_HEADER
from tests.integration.api.conftest import RecordingDispatcher, live_server, make_settings
from tests.integration.ui.conftest import OfflinePage

pytestmark = pytest.mark.browser

VIEWER = {VIEWER_HEADER: "1"}


@dataclass
class Keys:
    alice: str  # tenant "alice", read + write
    bob: str  # tenant "bob"
    reader: str  # tenant "alice", tasks:read only
    learner: str  # tenant "alice", learnings:read only (cannot read tasks)


@pytest.fixture
async def keyed_app(sqlite_url: str) -> AsyncIterator[tuple[FastAPI, Keys]]:
    await upgrade_async(sqlite_url)
    settings = make_settings(sqlite_url, api_keys_required=True, docs_access="key")
    app = create_app(settings, dispatcher=RecordingDispatcher())
    async with app.router.lifespan_context(app):
        async with app.state.session_factory() as s:
            made = [
                await create_api_key(s, tenant_id=tenant, name=tenant, scopes=scopes)
                for tenant, scopes in (
                    ("alice", (Scope.tasks_read, Scope.tasks_write)),
                    ("bob", (Scope.tasks_read, Scope.tasks_write)),
                    ("alice", (Scope.tasks_read,)),
                    ("alice", (Scope.learnings_read,)),
                )
            ]
            await s.commit()
        yield app, Keys(*(plain for _, plain in made))


def _client(app: FastAPI) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=app)
    return httpx.AsyncClient(transport=transport, base_url="http://viewer.test")


async def _task(app: FastAPI, key: str, instruction: str) -> str:
    async with _client(app) as client:
        response = await client.post(
            "/v1/tasks",
            json={"instruction": instruction},
            headers={"Authorization": f"Bearer {key}"},
        )
    assert response.status_code == 202, response.text
    return str(response.json()["id"])


async def _login(client: httpx.AsyncClient, key: str, next_: str = "/") -> httpx.Response:
    return await client.post("/login", data={"key": key, "next": next_})


async def test_pages_need_a_key_and_the_login_form_sets_an_httponly_cookie(
    keyed_app: tuple[FastAPI, Keys],
) -> None:
    app, keys = keyed_app
    mine = await _task(app, keys.alice, "alice's run")
    theirs = await _task(app, keys.bob, "bob's run")
    async with _client(app) as client:
        response = await client.get(f"/runs/{mine}")
        assert response.status_code == 303
        assert response.headers["location"] == f"/login?next=%2Fruns%2F{mine}"
        assert (await client.get("/docs")).status_code == 401

        refused = await _login(client, "wa_not_a_real_key")
        assert refused.status_code == 401 and "not valid" in refused.text
        assert COOKIE not in client.cookies

        signed_in = await _login(client, keys.alice, f"/runs/{mine}")
        assert signed_in.status_code == 303
        assert signed_in.headers["location"] == f"/runs/{mine}"
        cookie = signed_in.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie and "path=/" in cookie

        listing = await client.get("/")
        assert listing.status_code == 200
        assert mine in listing.text and theirs not in listing.text  # tenant-scoped
        assert (await client.get(f"/runs/{mine}")).status_code == 200
        assert (await client.get(f"/runs/{theirs}")).status_code == 404
        assert (await client.get("/docs")).status_code == 200
        assert (await client.get(f"/v1/tasks/{mine}")).status_code == 200  # GET: cookie is enough

        out = await client.post("/logout")
        assert out.status_code == 303
        assert (await client.get("/")).status_code == 303


async def test_cookie_changes_state_only_with_the_viewer_header_and_never_cross_site(
    keyed_app: tuple[FastAPI, Keys],
) -> None:
    app, keys = keyed_app
    body = {"instruction": "from the viewer"}
    async with _client(app) as client:
        await _login(client, keys.alice)
        assert (await client.post("/v1/tasks", json=body)).status_code == 401  # a plain form post
        cross = {**VIEWER, "Sec-Fetch-Site": "cross-site"}
        assert (await client.post("/v1/tasks", json=body, headers=cross)).status_code == 401
        made = await client.post("/v1/tasks", json=body, headers=VIEWER)
        assert made.status_code == 202
        task_id = made.json()["id"]
        stored = (await client.get(f"/v1/tasks/{task_id}")).json()
        assert stored["instruction"] == body["instruction"]
        cancel = await client.post(f"/v1/tasks/{task_id}/cancel", headers=VIEWER)
        assert cancel.status_code == 202


async def test_scopes_and_headers_decide_like_the_api(keyed_app: tuple[FastAPI, Keys]) -> None:
    app, keys = keyed_app
    async with _client(app) as client:
        page = await client.get("/", headers={"Authorization": f"Bearer {keys.alice}"})
        assert page.status_code == 200  # the header works without the cookie

        await _login(client, keys.learner)
        denied = await client.get("/")
        assert denied.status_code == 403 and "tasks:read" in denied.text

        await _login(client, keys.reader)
        assert (await client.get("/")).status_code == 200
        form = await client.get("/runs/new")
        assert "lacks the tasks:write scope" in form.text
        refused = await client.post("/v1/tasks", json={"instruction": "x"}, headers=VIEWER)
        assert refused.status_code == 403


async def test_login_refuses_foreign_redirects_and_cross_origin_posts(
    keyed_app: tuple[FastAPI, Keys],
) -> None:
    app, keys = keyed_app
    async with _client(app) as client:
        foreign_targets = ("//evil.example/", "https://x.example/", "/\\x.example", "/\t/x.example")
        for target in foreign_targets:
            response = await _login(client, keys.alice, target)
            assert response.status_code == 303 and response.headers["location"] == "/"
        foreign = await client.post(
            "/login",
            data={"key": keys.alice, "next": "/"},
            headers={"Origin": "https://evil.example"},
        )
        assert foreign.status_code == 401


async def test_sign_in_and_submit_in_the_browser(
    keyed_app: tuple[FastAPI, Keys], offline_page: OfflinePage
) -> None:
    app, keys = keyed_app
    page = offline_page.page
    async with live_server(app) as base_url:
        await page.goto(base_url + "/runs/new")
        await expect(page).to_have_url(re.compile(r"/login\?next=%2Fruns%2Fnew$"))
        await page.fill("#key", "wa_wrong")
        await page.keyboard.press("Enter")
        await expect(page.locator("#login-error")).to_be_visible()
        await page.fill("#key", keys.alice)
        await page.keyboard.press("Enter")
        await expect(page).to_have_url(base_url + "/runs/new")
        assert await page.evaluate("document.cookie") == ""  # HttpOnly: no script can read it

        await page.fill("#instruction", "signed-in run")
        await page.click("#submit")
        await expect(page.locator("#status")).to_have_text("queued")
        await expect(page.locator("#live")).to_be_visible()  # the SSE stream opened on the cookie
        task_id = page.url.rsplit("/", 1)[1]
        await page.click("#cancel")
        await expect(page.locator("#status")).to_have_text("cancelled")
        async with httpx.AsyncClient(base_url=base_url) as client:
            bearer = {"Authorization": f"Bearer {keys.alice}"}
            got = await client.get(f"/v1/tasks/{task_id}", headers=bearer)
        assert got.json()["status"] == "cancelled"
    assert offline_page.blocked == []
