"""Run-viewer fixtures: the embedded service over HTTP, a scripted LLM, the local test site,
and Chromium pages (the session's one browser) that may reach 127.0.0.1 only.

Every page aborts requests to any other host and records them in `OfflinePage.blocked`,
so each test also shows the viewer (and /docs) needs no CDN.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest
from playwright.async_api import Browser, Page, Route, expect
from pydantic import SecretStr
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import Route as HttpRoute

from app.db import create_engine, repositories, session_factory
from app.db.migrate import upgrade, upgrade_async
from app.events import MemoryEventBus
from app.main import create_app
from app.settings import Settings
from bench.support import serve
from tests.e2e.conftest import next_page_policy, task_text
from tests.integration.api.conftest import (
    RecordingDispatcher,
    add_event,
    live_server,
    make_settings,
)
from tests.support.llm_server import Reply, ScriptedLLMServer, error_reply, tool_reply
from tests.support.policies import (
    cheapest_product_policy,
    find_ref,
    last_tool_results,
    latest_observation,
)
from tests.support.sites import TestSite
from workers.process.embedded import build_app

ROOT = Path(__file__).resolve().parents[3]
LOOPBACK = frozenset({"127.0.0.1", "localhost", "::1", "[::1]"})

# instructions the routing LLM recognises
LIVE_SHOP = "find the cheapest product for the viewer and give its name and price"
ENDLESS = "keep reading the next page forever"
# not asking for the deletion the policy clicks, so a person is asked (issue 31 item 5)
DELETE = "look at my account page from the viewer and press its button"
ACCOUNT = """<!doctype html><title>Account</title><h1>Your account</h1>
<form method="post" action="/account"><button type="submit">Delete account</button></form>"""
DELETED = "<!doctype html><title>Goodbye</title><h1>Account deleted</h1>"
THOUGHT = "Sorting by price first, then reading the cheapest product."
LIVE_MODEL, LIVE_PRICE = "gpt-4o-mini", (0.15, 0.6)  # USD per 1M tokens in / out
PRICES = {"gpt-x": (2.0, 10.0)}  # USD per 1M tokens in / out, for the scripted-event viewer


class Gate:
    """Holds the model's final answer until the test has seen the run in progress."""

    def __init__(self) -> None:
        self.event = threading.Event()

    def open(self) -> None:
        self.event.set()

    def reset(self) -> None:
        self.event.clear()


LIVE_GATE = Gate()


def live_shop_policy(request: dict[str, Any]) -> Reply:
    """The shop script with the model's reasoning as text; `done` waits for LIVE_GATE."""
    reply = cheapest_product_policy(request)
    if any(name == "done" for name, _ in reply.tool_calls):
        LIVE_GATE.event.wait(timeout=60)
    return replace(reply, content=THOUGHT)


def delete_policy(request: dict[str, Any]) -> Reply:
    """Click "Delete account" (a sensitive action: the task waits for a person), then report."""
    obs = latest_observation(request)
    if "Account deleted" in obs:
        return tool_reply(("done", {"answer": "deleted", "success": True}))
    if any(r.get("error") for r in last_tool_results(request)):
        return tool_reply(("done", {"answer": "not deleted", "success": False}))
    return tool_reply(("click", {"ref": find_ref(obs, "button", "Delete account")}))


ROUTES: dict[str, Callable[[dict[str, Any]], Reply]] = {
    LIVE_SHOP: live_shop_policy,
    ENDLESS: next_page_policy,
    DELETE: delete_policy,
}


class AccountSite:
    """A page whose only button deletes the account (counted when it really happens)."""

    def __init__(self) -> None:
        self.deletions = 0

    async def account(self, request: Request) -> HTMLResponse:
        if request.method == "POST":
            self.deletions += 1
            return HTMLResponse(DELETED)
        return HTMLResponse(ACCOUNT)

    def app(self) -> Starlette:
        return Starlette(routes=[HttpRoute("/account", self.account, methods=["GET", "POST"])])


@pytest.fixture(scope="module")
def account_site() -> Iterator[tuple[AccountSite, str]]:
    site = AccountSite()
    with serve(site.app()) as origin:
        yield site, origin


RUN_URL = re.compile(r"/runs/(?!new$)[A-Za-z0-9_-]+$")


async def submitted(page: Page) -> str:
    """Submit the filled new-run form; the id of the task whose run page opens."""
    await page.click("#submit")
    await page.wait_for_url(RUN_URL)
    return page.url.rsplit("/", 1)[1]


async def expect_live_steps(page: Page, timeout_ms: int) -> None:
    """Steps, actions and reasoning on the run page while the final answer is held back."""
    actions = page.locator("#steps .action")
    await expect(actions.nth(2)).to_be_visible(timeout=timeout_ms)
    await expect(page.locator("#status")).to_have_text("running")
    await expect(page.locator("#final")).to_be_hidden()
    await expect(page.locator("#steps .thought").first).to_contain_text(THOUGHT)
    await expect(actions.filter(has_text="click(").first).to_be_visible()


def routing_policy(request: dict[str, Any]) -> Reply:
    text = task_text(request)
    for instruction, policy in ROUTES.items():
        if text.startswith(instruction):
            return policy(request)
    return error_reply(500, f"no viewer route for instruction {text[:80]!r}")


@pytest.fixture(autouse=True)
def patient_expect() -> Iterator[None]:
    """UI assertions wait up to 15 s (the suite shares 2 cores), then Playwright's default."""
    expect.set_options(timeout=15_000)
    yield
    expect.set_options(timeout=5_000)


@pytest.fixture(scope="module")
def ui_llm() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer(routing_policy) as server:
        yield server


@pytest.fixture(scope="module")
def ui_site() -> Iterator[TestSite]:
    with TestSite() as site:
        yield site


def viewer_settings(data_dir: Path, **overrides: Any) -> Settings:
    base: dict[str, Any] = {
        "data_dir": str(data_dir),
        "allow_private_networks": True,
        "browser_pool_size": 1,
        "heartbeat_interval_s": 1.0,
        "sse_ping_s": 5.0,
        "sse_db_poll_s": 0.3,
        "default_timeout_s": 60.0,
        "llm_max_retries": 0,
        "llm_api_key": SecretStr("viewer-key"),
        "humanize": False,  # direct clicks: the viewer is under test, not the hand
    }
    return Settings(**{**base, **overrides})


@dataclass
class Viewer:
    """A running service as the UI tests see it."""

    base_url: str
    database_url: str

    def client(self, **kw: Any) -> httpx.Client:
        return httpx.Client(base_url=self.base_url, timeout=30.0, **kw)


@pytest.fixture(scope="module")
def live_viewer(
    chromium_path: str,
    ui_llm: ScriptedLLMServer,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Viewer]:
    """The embedded deployment (SQLite + in-process worker + real Chromium) on a free port."""
    data_dir = tmp_path_factory.mktemp("viewer")
    settings = viewer_settings(
        data_dir,
        chromium_path=chromium_path,
        llm_base_url=ui_llm.base_url,
        llm_model=LIVE_MODEL,
        llm_prices={LIVE_MODEL: LIVE_PRICE},
        approval_poll_s=0.1,
    )
    upgrade(settings.effective_database_url)
    with serve(build_app(settings)) as base_url:
        yield Viewer(base_url, settings.effective_database_url)


@dataclass
class OfflinePage:
    page: Page
    blocked: list[str] = field(default_factory=list)


async def _offline(route: Route, blocked: list[str]) -> None:
    host = urlsplit(route.request.url).hostname or ""
    if route.request.url.startswith(("data:", "blob:")) or host in LOOPBACK:
        await route.continue_()
        return
    blocked.append(route.request.url)
    await route.abort()


@pytest.fixture
async def offline_page(chromium_browser: Browser) -> AsyncIterator[OfflinePage]:
    """A fresh context whose requests to any non-loopback host are aborted and recorded."""
    context = await chromium_browser.new_context(viewport={"width": 1280, "height": 900})
    holder = OfflinePage(page=await context.new_page())
    await context.route("**/*", lambda route: _offline(route, holder.blocked))
    try:
        yield holder
    finally:
        await context.close()


async def stored_events(database_url: str, task_id: str) -> list[Any]:
    engine = create_engine(database_url)
    try:
        async with session_factory(engine)() as s:
            return list(
                await repositories.list_events(s, task_id=task_id, after_seq=0, limit=10_000)
            )
    finally:
        await engine.dispose()


async def wait_status(client: httpx.AsyncClient, task_id: str, statuses: tuple[str, ...]) -> str:
    """Poll the API until the task's status is one of `statuses` (bounded by the test timeout)."""
    while True:
        status = str((await client.get(f"/v1/tasks/{task_id}")).json()["status"])
        if status in statuses:
            return status
        await asyncio.sleep(0.1)


@dataclass
class ApiViewer:
    """The API + viewer in this event loop with no worker: the test plays the worker's part
    (events into the DB and the live bus), so every event type can be shown exactly."""

    app: Any
    bus: Any
    base_url: str
    dispatcher: Any

    async def emit(self, task_id: str, seq: int, type_: str, **data: Any) -> None:
        await add_event(self.app, self.bus, task_id, seq, type_, **data)


@pytest.fixture
async def api_viewer(sqlite_url: str) -> AsyncIterator[ApiViewer]:
    await upgrade_async(sqlite_url)
    bus = MemoryEventBus()
    dispatcher = RecordingDispatcher()
    settings = make_settings(
        sqlite_url,
        sse_db_poll_s=0.5,
        llm_prices=PRICES,
        webhook_secret="viewer-tests",  # webhooks may be chosen; no poller sends them
        webhook_poll_interval_s=0,
    )
    app = create_app(settings, dispatcher=dispatcher, bus=bus)
    async with live_server(app) as base_url:
        yield ApiViewer(app, bus, base_url, dispatcher)
