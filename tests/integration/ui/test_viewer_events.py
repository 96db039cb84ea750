"""The run page shows every event type as it arrives, exactly: the test plays the worker
(each event into the DB and onto the live bus, one at a time) and checks the page after
each. Model and page text is shown as text, never as markup. Approve/deny buttons drive
the approvals API. No request leaves 127.0.0.1.
"""

from __future__ import annotations

import re
from datetime import timedelta

import httpx
import pytest
from playwright.async_api import Page, expect

from app.contracts import EventType
from app.db.repo_approvals import create_approval
from app.db.types import utcnow
from tests.integration.api.conftest import finish
from tests.integration.ui.conftest import ApiViewer, OfflinePage

pytestmark = pytest.mark.browser

INJECTION = '<img src="/x" onerror="window.__pwned = 1">'


async def _submit(viewer: ApiViewer, **extra: object) -> str:
    async with httpx.AsyncClient(base_url=viewer.base_url) as client:
        response = await client.post("/v1/tasks", json={"instruction": "book a table", **extra})
    assert response.status_code == 202, response.text
    return str(response.json()["id"])


async def _open(page: Page, viewer: ApiViewer, task_id: str) -> None:
    await page.goto(f"{viewer.base_url}/runs/{task_id}")
    await expect(page.locator("#live")).to_be_visible()  # the SSE stream is open


async def _pending_approval(viewer: ApiViewer, task_id: str) -> str:
    async with viewer.app.state.session_factory() as s:
        row = await create_approval(
            s,
            task_id=task_id,
            tenant_id="default",
            kind="sensitive_action",
            reason="the button says Delete account",
            details={"url": "http://shop.test/account", "element": "button Delete account"},
            expires_at=utcnow() + timedelta(minutes=5),
        )
        await s.commit()
        return str(row.id)


async def test_each_event_type_appears_as_it_arrives(
    api_viewer: ApiViewer, offline_page: OfflinePage
) -> None:
    page, emit = offline_page.page, api_viewer.emit
    task_id = await _submit(api_viewer)
    await _open(page, api_viewer, task_id)
    await expect(page.locator("#status")).to_have_text("queued")

    await emit(task_id, 1, EventType.task_started, worker_id="w", instruction="book a table")
    await expect(page.locator("#status")).to_have_text("running")
    await emit(task_id, 2, EventType.route_decided, kind="browser", confidence=0.9, families=[])
    await expect(page.locator("#route")).to_contain_text("browser")
    await emit(task_id, 3, EventType.step_started, step=1)
    await expect(page.locator("#step-1 h3")).to_have_text("Step 1")
    await emit(task_id, 4, EventType.observation, step=1, url="http://shop.test/", title="Shop")
    await expect(page.locator("#step-1 .page")).to_contain_text("http://shop.test/")
    await emit(
        task_id, 5, EventType.llm_call, step=1, role="worker", model="m", input_tokens=1200,
        output_tokens=30, latency_s=0.5, content=f"I will open the menu {INJECTION}",
        reasoning="the menu holds the booking link", cost_usd=0.0021,
    )  # fmt: skip
    thought = page.locator("#step-1 .thought")
    await expect(thought).to_contain_text("the menu holds the booking link")
    await expect(thought).to_contain_text(INJECTION)  # shown as text
    assert await page.locator("#step-1 .thought img").count() == 0
    await expect(page.locator("#fig-in")).to_have_text("1200")
    await expect(page.locator("#fig-cost")).to_have_text("$0.0021")
    await emit(
        task_id, 6, EventType.action_executed, step=1, action="click", args={"ref": "1:4"},
        success=False, reason="the element is covered by a dialog", error="element_obscured",
        page_changed=False,
    )  # fmt: skip
    failed = page.locator("#step-1 .action.failed")
    await expect(failed).to_contain_text('click(ref="1:4")')
    await expect(failed).to_contain_text("error: element_obscured")

    await emit(
        task_id, 7, EventType.plan_updated, step=1, trigger="periodic", done=False,
        next_steps=["close the dialog"], challenges="", parsed=True, subgoal="open the menu",
        checklist=[
            {"id": 1, "text": "Find the booking page", "status": "done"},
            {"id": 2, "text": "Pick 7 pm", "status": "pending"},
        ],
    )  # fmt: skip
    await expect(page.locator("#subgoal")).to_have_text("Subgoal: open the menu")
    await expect(page.locator("#checklist li")).to_have_text(
        ["Find the booking page (done)", "Pick 7 pm (pending)"]
    )
    await expect(page.locator("#next-steps")).to_contain_text("close the dialog")
    await emit(
        task_id, 8, EventType.fact_recorded, step=1, key="opening_hours", value="12-23",
        category="info", confidence=0.9, source_step=1,
    )  # fmt: skip
    await expect(page.locator("#facts")).to_contain_text("opening_hours = 12-23")
    await emit(
        task_id, 9, EventType.dead_end_recorded, step=1, description="login wall",
        url="http://shop.test/login", cause="auth_required", domain="shop.test",
    )  # fmt: skip
    await expect(page.locator("#dead-ends")).to_contain_text("auth_required login wall")

    await emit(
        task_id, 10, EventType.llm_call, step=1, role="planner", model="gpt-x-2025",
        input_tokens=1000, output_tokens=100, latency_s=0.2, content='{"reasoning": "on track"}',
    )  # fmt: skip
    await expect(page.locator("#calls tr").nth(1)).to_contain_text("$0.0030")  # priced here
    await expect(page.locator("#fig-cost")).to_have_text("$0.0051")
    await expect(page.locator("#step-1 .thought").nth(1)).to_have_text("planner: on track")
    await emit(
        task_id, 11, EventType.memory_used, route={"id": "r1", "replayed_steps": 4,
        "fell_back_at": None}, facts=[{"domain": "shop.test", "key": "opening_hours"}],
        saved={"calls": 4, "seconds": 12.5}, stored={"route": None, "facts": 1},
    )  # fmt: skip
    await expect(page.locator("#memory")).to_have_text(
        "Memory: replayed 4 steps of a proven route; shown facts of earlier runs: "
        "opening_hours; saved 4 model calls, about 12.5 s; kept 1 facts for later runs"
    )
    await emit(
        task_id, 12, EventType.task_finished, status="succeeded", answer="Table for 2 at 7 pm",
        success=True, error=None, error_detail=None, data={"time": "19:00"},
        usage={"steps": 1, "llm_calls": 1, "input_tokens": 1200, "output_tokens": 30},
        duration_s=3.5,
    )  # fmt: skip
    await expect(page.locator("#status")).to_have_text("succeeded")
    await expect(page.locator("#final-answer")).to_have_text("Table for 2 at 7 pm")
    await expect(page.locator("#final-data")).to_contain_text('"time": "19:00"')
    await expect(page.locator("#fig-duration")).to_have_text("3.5 s")
    await expect(page.locator("#cancel")).to_be_hidden()
    await expect(page.locator("#live")).to_be_hidden()  # stream closed after the last event

    # the list prices the run the same way; a reload replays the same run from the database
    await page.goto(api_viewer.base_url + "/")
    await expect(page.locator(f"tr[data-task-id='{task_id}'] td").nth(5)).to_have_text("$0.0051")
    await page.goto(f"{api_viewer.base_url}/runs/{task_id}")
    await expect(page.locator("#fig-cost")).to_have_text("$0.0051")
    await expect(page.locator("#final-answer")).to_have_text("Table for 2 at 7 pm")
    await expect(page.locator("#step-1 .action")).to_have_count(1)
    assert await page.evaluate("window.__pwned") is None
    assert offline_page.blocked == []


async def test_approve_and_deny_buttons_answer_the_approvals_api(
    api_viewer: ApiViewer, offline_page: OfflinePage
) -> None:
    page, emit = offline_page.page, api_viewer.emit
    task_id = await _submit(api_viewer)
    approve_id = await _pending_approval(api_viewer, task_id)
    deny_id = await _pending_approval(api_viewer, task_id)
    await _open(page, api_viewer, task_id)
    await emit(task_id, 1, EventType.task_started, worker_id="w")
    for seq, approval_id in ((2, approve_id), (3, deny_id)):
        await emit(
            task_id, seq, EventType.approval_requested, approval_id=approval_id,
            kind="sensitive_action", reason="the button says Delete account",
            url="http://shop.test/account", element="button Delete account", screenshot=None,
            expires_at=None,
        )  # fmt: skip
    await expect(page.locator("#approvals")).to_be_visible()
    await expect(page.locator("#status")).to_have_text("awaiting_approval")
    first = page.locator(f"[data-approval-id='{approve_id}']")
    second = page.locator(f"[data-approval-id='{deny_id}']")
    await expect(first).to_contain_text("Delete account")

    await first.locator("button[data-decision=approve]").click()
    await expect(first.locator(".outcome")).to_have_text("Approved")
    await second.locator("button[data-decision=deny]").focus()
    await page.keyboard.press("Enter")  # the buttons work from the keyboard too
    await expect(second.locator(".outcome")).to_have_text("Denied")
    await expect(page.locator("#status")).to_have_text("running")
    async with httpx.AsyncClient(base_url=api_viewer.base_url) as client:
        listed = (await client.get(f"/v1/tasks/{task_id}/approvals")).json()["items"]
    assert {a["id"]: a["status"] for a in listed} == {approve_id: "approved", deny_id: "denied"}

    # the worker's approval.resolved (here replayed after a reload) keeps them decided
    await emit(task_id, 4, EventType.approval_resolved, approval_id=approve_id,
               decision="approve", by="viewer")  # fmt: skip
    await page.reload()
    await expect(first.locator(".outcome")).to_have_text("Approved by viewer")
    assert await first.locator("button").count() == 0
    # a second answer to a decided request is refused by the API, and the page says so
    await expect(second.locator("button")).to_have_count(2)  # not resolved by an event yet
    await second.locator("button[data-decision=approve]").click()
    await expect(page.locator("#action-error")).to_contain_text("HTTP 409")
    assert offline_page.blocked == []


async def test_unknown_run_is_a_404_page(api_viewer: ApiViewer, offline_page: OfflinePage) -> None:
    response = await offline_page.page.goto(f"{api_viewer.base_url}/runs/0123456789abcdef")
    assert response is not None and response.status == 404
    await expect(offline_page.page.locator("h1")).to_have_text("Run not found")


async def test_a_run_that_ended_without_its_last_event_is_shown_finished(
    api_viewer: ApiViewer, offline_page: OfflinePage
) -> None:
    task_id = await _submit(api_viewer)
    page = offline_page.page
    await _open(page, api_viewer, task_id)
    await expect(page.locator("#final")).to_be_hidden()
    await finish(api_viewer.app, task_id)  # the row turns terminal, no task.finished recorded
    await expect(page.locator("#final-answer")).to_have_text("42")  # the stream ended: read it
    await expect(page.locator("#status")).to_have_text("succeeded")
    await expect(page.locator("#live")).to_be_hidden()
    await expect(page.locator("#cancel")).to_be_hidden()


async def test_the_decision_panel_goes_once_decided_and_expiry_reads_in_minutes(
    api_viewer: ApiViewer, offline_page: OfflinePage
) -> None:
    """Issue 23 §4: the panel stayed on a decided (and finished) run; expiry was raw ISO."""
    page, emit = offline_page.page, api_viewer.emit
    task_id = await _submit(api_viewer)
    approval_id = await _pending_approval(api_viewer, task_id)
    await _open(page, api_viewer, task_id)
    await emit(task_id, 1, EventType.task_started, worker_id="w")
    expires = (utcnow() + timedelta(minutes=9, seconds=40)).isoformat()
    await emit(
        task_id, 2, EventType.approval_requested, approval_id=approval_id,
        kind="sensitive_action", reason="the button says Delete account",
        url="http://shop.test/account", element=None, screenshot=None, expires_at=expires,
    )  # fmt: skip
    item = page.locator(f"[data-approval-id='{approval_id}']")
    await expect(page.locator("#approvals")).to_be_visible()
    await expect(item.locator(".expires")).to_have_text("expires in 9 min")
    assert await item.locator(".expires").get_attribute("title") == expires
    await item.locator("button[data-decision=approve]").click()
    await expect(page.locator("#approvals")).to_be_hidden()
    await expect(page.locator("#status")).to_have_text("running")
    await emit(task_id, 3, EventType.approval_resolved, approval_id=approval_id,
               decision="approved", by="viewer")  # fmt: skip
    await finish(api_viewer.app, task_id)
    await page.reload()  # a finished run replays its events: no panel asks for a decision
    await expect(page.locator("#final")).to_be_visible()
    await expect(page.locator("#approvals")).to_be_hidden()
    assert offline_page.blocked == []


async def test_the_runs_list_follows_new_runs_and_their_status(
    api_viewer: ApiViewer, offline_page: OfflinePage
) -> None:
    """Issue 23 §4: the runs list did not refresh."""
    page = offline_page.page
    first = await _submit(api_viewer)
    await page.goto(api_viewer.base_url + "/")
    await expect(page.locator(f"tr[data-task-id='{first}'] .badge")).to_have_text("queued")
    second = await _submit(api_viewer)
    await expect(page.locator(f"tr[data-task-id='{second}']")).to_be_visible()
    await finish(api_viewer.app, first)
    await expect(page.locator(f"tr[data-task-id='{first}'] .badge")).to_have_text("succeeded")
    assert offline_page.blocked == []


async def test_the_form_sends_profile_secrets_and_webhook(
    api_viewer: ApiViewer, offline_page: OfflinePage
) -> None:
    """Issue 23 §6: the new-run form lacked profile, secrets and webhook."""
    page = offline_page.page
    async with httpx.AsyncClient(base_url=api_viewer.base_url) as client:
        assert (await client.post("/v1/profiles", json={"name": "shop"})).status_code == 201
    await page.goto(api_viewer.base_url + "/runs/new")
    await page.fill("#instruction", "log in and read the balance")
    await page.select_option("#profile", "shop")
    await page.fill("#secret-name-0", "PASSWORD")
    await page.fill("#secret-value-0", "hunter2-secret")
    assert await page.get_attribute("#secret-value-0", "type") == "password"
    await page.fill("#webhook_url", "https://93.184.215.14/hooks/webagent")
    await page.check("#webhook-event-approval_requested")
    await page.click("#submit")
    await page.wait_for_url(re.compile(r"/runs/[0-9a-f]{32}$"))
    task_id = page.url.rsplit("/", 1)[-1]
    async with httpx.AsyncClient(base_url=api_viewer.base_url) as client:
        task = (await client.get(f"/v1/tasks/{task_id}")).json()
    assert task["profile"] == "shop" and task["secrets"] == ["PASSWORD"]
    assert task["webhook_url"] == "https://93.184.215.14/hooks/webagent"
    assert set(task["webhook_events"]) == {"approval.requested", "task.finished"}
    assert offline_page.blocked == []
