"""The run page's result beyond the answer: the answer check's verdict (result.grounding)
and the files the run kept (downloads, listed live with links that download them). The test
plays the worker (events and artifacts into the DB, events onto the live bus). No request
leaves 127.0.0.1."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest
from playwright.async_api import expect

from app.contracts import EventType
from app.store.records import keep_artifact
from tests.integration.ui.conftest import ApiViewer, OfflinePage

pytestmark = pytest.mark.browser

USAGE = {"steps": 2, "llm_calls": 2, "input_tokens": 10, "output_tokens": 5}
CSV = b"order,total\nQ-4821,22.85\n"


async def _submit(viewer: ApiViewer) -> str:
    async with httpx.AsyncClient(base_url=viewer.base_url) as client:
        response = await client.post("/v1/tasks", json={"instruction": "export my orders"})
    assert response.status_code == 202, response.text
    return str(response.json()["id"])


async def _download(
    viewer: ApiViewer, task_id: str, number: int, name: str | None, kind: str = "download"
) -> None:
    async with viewer.app.state.session_factory() as s:
        await keep_artifact(
            s, viewer.app.state.artifact_store, task_id=task_id, tenant_id="default", kind=kind,
            step=number,
            content_type="text/csv", data=CSV, name=name,
        )  # fmt: skip
        await s.commit()


async def _finish(viewer: ApiViewer, task_id: str, seq: int, grounding: dict[str, object]) -> None:
    await viewer.emit(
        task_id, seq, EventType.task_finished, status="succeeded", answer="Order Q-9917",
        success=True, error=None, error_detail=None, data=None, grounding=grounding,
        usage=USAGE, duration_s=2.0,
    )  # fmt: skip


async def test_downloads_appear_live_with_links_and_an_unverified_answer_is_flagged(
    api_viewer: ApiViewer, offline_page: OfflinePage
) -> None:
    page, emit = offline_page.page, api_viewer.emit
    task_id = await _submit(api_viewer)
    await page.goto(f"{api_viewer.base_url}/runs/{task_id}")
    await expect(page.locator("#live")).to_be_visible()
    await emit(task_id, 1, EventType.task_started, worker_id="w")
    await emit(task_id, 2, EventType.step_started, step=1)
    await expect(page.locator("#files")).to_be_hidden()
    await _download(api_viewer, task_id, 1, "orders.csv")
    await emit(task_id, 3, EventType.step_started, step=2)  # the next step shows the new file
    link = page.locator("#file-list a")
    await expect(link).to_have_text("orders.csv")
    await expect(page.locator("#file-list li")).to_contain_text("file, text/csv, 25 B")
    async with page.expect_download() as info:
        await link.click()
    download = await info.value
    assert download.suggested_filename == "orders.csv"
    assert Path(await download.path()).read_bytes() == CSV

    await _download(api_viewer, task_id, 2, "invoice.pdf")
    await _finish(
        api_viewer, task_id, 4,
        {"verdict": "unverified", "checked": 1, "unseen": ["Q-9917"], "derived": [],
         "corrected": False},
    )  # fmt: skip
    verdict = page.locator("#final-grounding")
    await expect(verdict).to_have_text("Not verified: “Q-9917” appear on no page the run saw.")
    await expect(verdict).to_have_class("grounding grounding-unverified")
    await expect(page.locator("#file-list a")).to_have_text(["orders.csv", "invoice.pdf"])

    await page.reload()  # replayed from the database: the same verdict and files
    await expect(page.locator("#final-grounding")).to_have_attribute("data-verdict", "unverified")
    await expect(page.locator("#file-list a")).to_have_count(2)
    assert offline_page.blocked == []


async def test_a_verified_answer_names_its_computed_values_and_approval_shots_are_files(
    api_viewer: ApiViewer, offline_page: OfflinePage
) -> None:
    page = offline_page.page
    task_id = await _submit(api_viewer)
    await api_viewer.emit(task_id, 1, EventType.task_started, worker_id="w")
    await _finish(
        api_viewer, task_id, 2,
        {"verdict": "verified", "checked": 2, "unseen": [], "derived": ["$22.85"],
         "corrected": True, "answer_before_check": "Order Q-4812"},
    )  # fmt: skip
    await _download(api_viewer, task_id, 1, None, kind="approval")
    await _download(api_viewer, task_id, 1, None, kind="screenshot")  # in the timeline only
    await page.goto(f"{api_viewer.base_url}/runs/{task_id}")
    verdict = page.locator("#final-grounding")
    await expect(verdict).to_contain_text("Checked: the answer's 2 checkable value(s)")
    await expect(verdict).to_contain_text("Computed from page values: “$22.85”.")
    await expect(verdict).to_contain_text("it first said: Order Q-4812")
    await expect(page.locator("#file-list a")).to_have_text(["approval screenshot 1"])
    assert offline_page.blocked == []


async def test_a_run_recording_is_listed_with_the_command_that_opens_it(
    api_viewer: ApiViewer, offline_page: OfflinePage
) -> None:
    page = offline_page.page
    task_id = await _submit(api_viewer)
    await api_viewer.emit(task_id, 1, EventType.task_started, worker_id="w")
    await _download(api_viewer, task_id, 1, "trace.zip", kind="trace")
    await _finish(
        api_viewer, task_id, 2,
        {"verdict": "verified", "checked": 1, "unseen": [], "derived": [], "corrected": False},
    )  # fmt: skip
    await page.goto(f"{api_viewer.base_url}/runs/{task_id}")
    link = page.locator("#file-list a")
    await expect(link).to_have_text("trace.zip")
    await expect(page.locator("#file-list li")).to_contain_text("run recording")
    await expect(page.locator("#file-list .trace-command")).to_have_text(
        "playwright show-trace trace.zip"
    )
    async with page.expect_download() as info:
        await link.click()
    assert (await info.value).suggested_filename == "trace.zip"
    assert offline_page.blocked == []
