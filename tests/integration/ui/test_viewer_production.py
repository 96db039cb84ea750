"""The run viewer against the production deployment: the API here on Postgres + Redis and a
separate `webagent worker` process (tests/e2e/conftest.py `production`). A task submitted
from the form is picked up by the worker over rq, and its run page follows the Redis event
stream live, through the held-back final answer, in real headless Chromium. No request
leaves 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest
from playwright.async_api import expect

from app.db.migrate import upgrade
from tests.e2e.conftest import production
from tests.integration.ui.conftest import (
    LIVE_GATE,
    LIVE_SHOP,
    OfflinePage,
    expect_live_steps,
    submitted,
)
from tests.support.llm_server import ScriptedLLMServer
from tests.support.sites import TestSite

pytestmark = pytest.mark.browser

AGENT_WAIT_MS = 120_000  # a worker process warming its own Chromium on a loaded 2-core machine


@pytest.fixture(scope="module")
def prod_viewer(
    chromium_path: str,
    ui_llm: ScriptedLLMServer,
    postgres_url: str,
    redis_url: str,
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[str]:
    """The API (viewer included) in this process, the worker in its own; the base URL."""
    upgrade(postgres_url)
    data_dir = tmp_path_factory.mktemp("viewer-production")
    with production(chromium_path, ui_llm, data_dir, postgres_url, redis_url) as (url, _):
        yield url


async def test_form_submission_runs_on_the_worker_and_the_page_follows_it_live(
    prod_viewer: str, ui_site: TestSite, offline_page: OfflinePage
) -> None:
    LIVE_GATE.reset()
    try:
        page = offline_page.page
        await page.goto(prod_viewer + "/runs/new")
        await page.fill("#instruction", LIVE_SHOP)
        await page.fill("#start_url", ui_site.url("/"))
        await page.select_option("#approval_policy", "none")
        await page.fill("#max_steps", "10")
        task_id = await submitted(page)

        # live from the worker process: steps and reasoning while the answer is held back
        await expect_live_steps(page, AGENT_WAIT_MS)
        await expect(page.locator("#live")).to_be_visible()
        LIVE_GATE.open()

        await expect(page.locator("#status")).to_have_text("succeeded", timeout=AGENT_WAIT_MS)
        await expect(page.locator("#final-answer")).to_contain_text("Wool Socks at $12.75")
        # the answer check ran in the worker process: the price was on the page
        await expect(page.locator("#final-grounding")).to_have_attribute("data-verdict", "verified")
        await expect(page.locator("#live")).to_be_hidden()
        async with httpx.AsyncClient(base_url=prod_viewer) as client:
            task = (await client.get(f"/v1/tasks/{task_id}")).json()
        assert (
            task["status"] == "succeeded" and task["result"]["grounding"]["verdict"] == "verified"
        )
        await expect(page.locator("#fig-steps")).to_have_text(str(task["usage"]["steps"]))
        assert offline_page.blocked == []
    finally:
        LIVE_GATE.open()  # never leave the worker waiting on a failed test
