"""The run viewer in real headless Chromium against the embedded service: a task submitted
from the form runs on the local test site (scripted LLM, real browser worker) and its run
page updates live from the SSE stream; screenshots open enlarged; the cancel button stops a
run; the list filters; everything is reachable with the keyboard. No request leaves
127.0.0.1 (the page aborts any other host).

Set WEBAGENT_DOCS_SCREENSHOTS=1 to refresh docs/img/run-page.png from the finished run.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import httpx
import pytest
from playwright.async_api import Page, expect

from tests.integration.ui.conftest import (
    DELETE,
    ENDLESS,
    LIVE_GATE,
    LIVE_PRICE,
    LIVE_SHOP,
    ROOT,
    AccountSite,
    OfflinePage,
    Viewer,
    expect_live_steps,
    submitted,
    wait_status,
)
from tests.support.sites import TestSite

pytestmark = pytest.mark.browser

AGENT_WAIT_MS = 30_000  # a real Chromium worker on a loaded 2-core machine


async def _focused(page: Page) -> str:
    return str(await page.evaluate("document.activeElement ? document.activeElement.id : ''"))


async def _tab_to(page: Page, selector: str, limit: int = 40) -> None:
    """Press Tab until the element matching `selector` has the focus."""
    for _ in range(limit):
        await page.keyboard.press("Tab")
        if await page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"{selector} never got the keyboard focus")


async def test_submit_from_the_form_and_watch_the_run_live(
    live_viewer: Viewer, ui_site: TestSite, offline_page: OfflinePage, tmp_path: Path
) -> None:
    LIVE_GATE.reset()
    try:
        await _watch_live(live_viewer, ui_site, offline_page, tmp_path)
    finally:
        LIVE_GATE.open()  # never leave the worker waiting on a failed test


async def _watch_live(
    live_viewer: Viewer, ui_site: TestSite, offline_page: OfflinePage, tmp_path: Path
) -> None:
    page = offline_page.page
    await page.goto(live_viewer.base_url + "/runs/new")
    await page.fill("#instruction", LIVE_SHOP)
    await page.fill("#start_url", ui_site.url("/"))
    await page.select_option("#approval_policy", "none")
    await page.fill("#output_schema", "not json")
    await page.click("#submit")
    await expect(page.locator("#err-output_schema")).to_contain_text("Not valid JSON")
    await page.fill("#output_schema", "")
    await page.fill("#max_steps", "99999")
    await page.click("#submit")  # the API's 422 appears next to the field it names
    await expect(page.locator("#err-max_steps")).to_contain_text("less than or equal")
    await page.fill("#max_steps", "10")
    task_id = await submitted(page)

    # live: steps, actions and reasoning arrive while the model's final answer is held back
    await expect_live_steps(page, AGENT_WAIT_MS)
    await expect(page.locator("#calls tr").first).to_be_visible()
    LIVE_GATE.open()

    await expect(page.locator("#status")).to_have_text("succeeded", timeout=AGENT_WAIT_MS)
    await expect(page.locator("#final-answer")).to_contain_text("Wool Socks at $12.75")
    async with httpx.AsyncClient(base_url=live_viewer.base_url) as client:
        got = await client.get(f"/v1/tasks/{task_id}")
    assert got.status_code == 200, got.text
    task = got.json()
    assert task["instruction"] == LIVE_SHOP and task["max_steps"] == 10
    assert task["approval_policy"] == "none"
    usage = task["usage"]
    await expect(page.locator("#fig-steps")).to_have_text(str(usage["steps"]))
    await expect(page.locator("#fig-calls")).to_have_text(str(usage["llm_calls"]))
    await expect(page.locator("#fig-in")).to_have_text(str(usage["input_tokens"]))
    await expect(page.locator("#calls tr")).to_have_count(usage["llm_calls"])
    cost = (usage["input_tokens"] * LIVE_PRICE[0] + usage["output_tokens"] * LIVE_PRICE[1]) / 1e6
    shown = await page.locator("#fig-cost").inner_text()  # each call priced, then summed
    assert shown.startswith("$") and abs(float(shown[1:]) - cost) < 0.00011

    # a step's screenshot opens enlarged in a modal dialog and closes with Escape
    thumb = page.locator("#steps .thumb").first
    await expect(thumb).to_be_visible()
    await thumb.click()
    dialog = page.locator("#shot-dialog")
    await expect(dialog).to_be_visible()
    full = page.locator("#shot-full")
    await expect(full).to_have_attribute("src", re.compile(rf"/v1/tasks/{task_id}/screenshots/"))
    await page.wait_for_function(
        "() => { const i = document.getElementById('shot-full'); "
        "return i.complete && i.naturalWidth > 0; }"
    )
    await page.keyboard.press("Escape")
    await expect(dialog).to_be_hidden()
    assert await thumb.evaluate("(b) => b === document.activeElement")

    await page.evaluate("document.activeElement.blur()")
    shot = tmp_path / "run-page.png"
    await page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000
    if os.environ.get("WEBAGENT_DOCS_SCREENSHOTS") == "1":
        target = ROOT / "docs" / "img" / "run-page.png"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shot, target)
    assert offline_page.blocked == []


async def test_cancel_button_stops_a_running_run(
    live_viewer: Viewer, ui_site: TestSite, offline_page: OfflinePage
) -> None:
    async with httpx.AsyncClient(base_url=live_viewer.base_url) as client:
        response = await client.post(
            "/v1/tasks",
            json={"instruction": ENDLESS, "start_url": ui_site.url("/counter/1"), "max_steps": 200},
        )
        task_id = response.json()["id"]
        page = offline_page.page
        await page.goto(f"{live_viewer.base_url}/runs/{task_id}")
        await expect(page.locator("#steps .action").first).to_be_visible(timeout=AGENT_WAIT_MS)
        await expect(page.locator("#status")).to_have_text("running")
        await page.click("#cancel")
        await expect(page.locator("#status")).to_have_text("cancelled", timeout=AGENT_WAIT_MS)
        await expect(page.locator("#cancel")).to_be_hidden()
        await expect(page.locator("#final-status")).to_contain_text("cancelled")
        assert await wait_status(client, task_id, ("cancelled",)) == "cancelled"
    assert offline_page.blocked == []


async def test_approve_a_guarded_action_from_the_run_page(
    live_viewer: Viewer, account_site: tuple[AccountSite, str], offline_page: OfflinePage
) -> None:
    site, origin = account_site
    async with httpx.AsyncClient(base_url=live_viewer.base_url) as client:
        response = await client.post(
            "/v1/tasks",
            json={"instruction": DELETE, "start_url": origin + "/account", "max_steps": 5},
        )
        task_id = response.json()["id"]
        page = offline_page.page
        await page.goto(f"{live_viewer.base_url}/runs/{task_id}")
        request = page.locator("#approval-list .approval")
        await expect(request).to_contain_text("Delete account", timeout=AGENT_WAIT_MS)
        await expect(page.locator("#status")).to_have_text("awaiting_approval")
        assert site.deletions == 0  # the click waits for a person
        # the live panel: the person may act while the run waits, but nobody took over
        await expect(page.locator("#run")).to_have_attribute("data-control", "person")
        await expect(page.locator("#live-state")).to_contain_text("waits for your decision")
        await expect(page.locator("#hand-back")).to_be_hidden()
        await expect(page.locator("#take-over")).to_be_visible()
        shot = await request.locator(".thumb img").element_handle()  # the page when it asked
        assert shot is not None
        await page.wait_for_function("(i) => i.complete && i.naturalWidth > 0", arg=shot)
        await request.locator("button[data-decision=approve]").click()
        await expect(request.locator(".outcome")).to_contain_text("Approved")
        await expect(page.locator("#status")).to_have_text("succeeded", timeout=AGENT_WAIT_MS)
        # the live panel goes with the run's end, not seconds later ("The agent is acting")
        assert await page.locator("#live-view").is_hidden()
        await expect(page.locator("#final-answer")).to_have_text("deleted")
        assert site.deletions == 1
        approvals = (await client.get(f"/v1/tasks/{task_id}/approvals")).json()["items"]
        assert [a["status"] for a in approvals] == ["approved"]
    assert offline_page.blocked == []


async def test_run_list_filters_and_keyboard_navigation(
    live_viewer: Viewer, ui_site: TestSite, offline_page: OfflinePage
) -> None:
    async with httpx.AsyncClient(base_url=live_viewer.base_url) as client:
        response = await client.post(
            "/v1/tasks",
            json={"instruction": ENDLESS, "start_url": ui_site.url("/counter/1"), "max_steps": 1},
        )
        endless_id = response.json()["id"]
        await wait_status(client, endless_id, ("failed", "succeeded", "timed_out"))
        listed = (await client.get("/v1/tasks", params={"limit": 200})).json()["items"]
    page = offline_page.page
    await page.goto(live_viewer.base_url + "/")
    rows = page.locator("#runs tbody tr")
    await expect(rows).to_have_count(len(listed))
    await expect(rows.first).to_have_attribute("data-task-id", listed[0]["id"])  # newest first

    # keyboard: skip link, the search box, Enter submits the filter
    await page.keyboard.press("Tab")
    assert await page.evaluate("document.activeElement.textContent") == "Skip to content"
    await _tab_to(page, "#filter-q")
    await page.keyboard.type("forever")
    await page.keyboard.press("Enter")
    await page.wait_for_url(re.compile(r"q=forever"))
    endless = [t for t in listed if "forever" in t["instruction"]]
    await expect(rows).to_have_count(len(endless))

    # status filter narrows to the run that hit its step limit
    await page.select_option("#filter-status", "failed")
    await page.click(".filters button[type=submit]")
    await expect(page.locator(f"tr[data-task-id='{endless_id}']")).to_be_visible()
    for status in await page.locator("#runs tbody .badge").all_inner_texts():
        assert status == "failed"

    # Enter on a run's link opens its page; the page's controls are keyboard reachable
    await page.goto(live_viewer.base_url + "/?q=forever")
    await _tab_to(page, f"tr[data-task-id='{endless_id}'] .run-link")
    await page.keyboard.press("Enter")
    await page.wait_for_url(re.compile(rf"/runs/{endless_id}$"))
    await expect(page.locator("#status")).to_have_text("failed")
    await expect(page.locator("#steps .thumb").first).to_be_visible(timeout=AGENT_WAIT_MS)
    await _tab_to(page, "#steps .thumb")
    await page.keyboard.press("Enter")
    await expect(page.locator("#shot-dialog")).to_be_visible()
    assert await _focused(page) == "shot-close"
    await page.keyboard.press("Escape")
    await expect(page.locator("#shot-dialog")).to_be_hidden()
    assert offline_page.blocked == []
