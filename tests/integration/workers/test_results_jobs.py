"""run_task with what results add: output_schema (and its repair round), a start page that
never loaded, and a browser profile carried from one task to the next. Real Chromium, the
openai client against the scripted server, the embedded workers on SQLite."""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from cryptography.fernet import Fernet
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.contracts import TaskStatus
from app.db import repo_profiles, repo_webhooks, repositories
from app.db.migrate import upgrade
from app.events import MemoryEventBus
from tests.integration.workers.test_jobs import stored_events, wait_terminal, worker_settings
from tests.support.llm_server import Reply, ScriptedLLMServer, prompt_text, text_reply, tool_reply
from tests.support.login_site import LoginSite
from tests.support.policies import latest_observation
from tests.support.webhook_receiver import SECRET, Receiver, signature_ok
from workers.process.embedded import EmbeddedWorkers

pytestmark = [pytest.mark.browser]

Sessions = async_sessionmaker[AsyncSession]
SCHEMA = {
    "type": "object",
    "properties": {"signed_in": {"type": "boolean"}, "user": {"type": ["string", "null"]}},
    "required": ["signed_in", "user"],
}
REPAIR_MARK = "The run's final answer:"


def done(answer: str, success: bool = True) -> Reply:
    return tool_reply(("done", {"answer": answer, "success": success}))


def site_model(request: dict[str, Any]) -> Reply:
    """Reads the page like a model would; answers a repair request with the JSON it asks for."""
    if REPAIR_MARK in prompt_text(request):
        return text_reply('{"signed_in": false, "user": null}')
    page = latest_observation(request)
    if "Welcome alice" in page:
        return done("logged in as alice")
    if "Signed in as alice" in page:
        theme = "dark-alice" if "theme: dark-alice" in page else "no theme"
        return done(f"Signed in as alice, {theme}")
    if "Please sign in" in page:
        return done("The account page asks me to sign in.")  # prose, not the JSON asked for
    return done("it worked")  # claims success whatever it saw


@pytest.fixture(scope="module")
def db_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('results')}/webagent.db"
    upgrade(url)
    return url


@pytest.fixture(scope="module")
def site() -> Iterator[LoginSite]:
    with LoginSite() as running_site:
        yield running_site


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer(site_model) as server:
        yield server


@pytest.fixture(scope="module")
async def workers(
    chromium_path: str, db_url: str, model: ScriptedLLMServer
) -> AsyncIterator[EmbeddedWorkers]:
    """One embedded worker (one warm Chromium) for the module's tasks."""
    settings = worker_settings(
        chromium_path,
        db_url,
        model,
        secrets_key=Fernet.generate_key().decode(),
        webhook_secret=SECRET,
        webhook_poll_interval_s=0,  # no poller: only the finishing worker sends
    )
    embedded = EmbeddedWorkers(settings, MemoryEventBus(), 1)
    await asyncio.to_thread(embedded.start)
    try:
        yield embedded
    finally:
        await asyncio.to_thread(embedded.stop)


async def run(workers: EmbeddedWorkers, sessions: Sessions, start_url: str, **extra: Any) -> Any:
    async with sessions() as s:
        task, _ = await repositories.create_task(
            s,
            tenant_id="default",
            instruction=f"open the page and report what it says ({uuid.uuid4().hex[:8]})",
            start_url=start_url,
            max_steps=3,
            timeout_s=60,
            allowed_domains=(),
            metadata={},
            extra=extra,
        )
        await s.commit()
    workers.submit(task.id)
    return await wait_terminal(sessions, task.id)


async def test_output_schema_answer_is_repaired_into_result_data(
    workers: EmbeddedWorkers, sessions: Sessions, site: LoginSite, model: ScriptedLLMServer
) -> None:
    task = await run(workers, sessions, site.url("/account"), output_schema=SCHEMA)
    assert task.status == TaskStatus.succeeded, task.error_detail
    assert task.result_data == {"signed_in": False, "user": None}
    assert task.answer == "The account page asks me to sign in."
    rows = await stored_events(sessions, task.id)
    repairs = [r for r in rows if r.type == "llm.call" and r.seq > 0]
    assert len(repairs) >= 2  # the run's calls plus the repair call, metered like any other
    finished = rows[-1].data
    assert finished["data"] == {"signed_in": False, "user": None}
    told = [r for r in model.requests if task.instruction in prompt_text(r)]
    assert told and '"signed_in"' in prompt_text(told[0])  # the schema came with the task


async def test_unreachable_start_page_does_not_succeed(
    workers: EmbeddedWorkers, sessions: Sessions, site: LoginSite
) -> None:
    refused = await run(workers, sessions, "http://127.0.0.1:1/")
    assert (refused.status, refused.error) == ("failed", "start_page_unreachable")
    assert "127.0.0.1:1" in (refused.error_detail or "")
    down = await run(workers, sessions, site.url("/down"))
    assert (down.status, down.error) == ("failed", "start_page_unreachable")
    assert "503" in (down.error_detail or "")


async def test_profile_carries_a_login_to_the_next_task(
    workers: EmbeddedWorkers, sessions: Sessions, site: LoginSite
) -> None:
    async with sessions() as s:
        await repo_profiles.create_profile(s, tenant_id="default", name="shop")
        await s.commit()
    before = await run(workers, sessions, site.url("/account"), profile="shop")
    assert "sign in" in (before.answer or "")  # an empty profile: not logged in
    first = await run(
        workers, sessions, site.url("/login?user=alice"), profile="shop", save_profile=True
    )
    assert first.status == TaskStatus.succeeded, first.error_detail
    second = await run(workers, sessions, site.url("/account"), profile="shop")
    assert second.status == TaskStatus.succeeded, second.error_detail
    assert second.answer == "Signed in as alice, dark-alice"  # cookie and localStorage back
    async with sessions() as s:
        row = await repo_profiles.get_profile(s, tenant_id="default", name="shop")
    assert row is not None and row.saved_at is not None and row.storage_sealed
    assert "tok-" not in row.storage_sealed and "dark-alice" not in row.storage_sealed
    fresh = await run(workers, sessions, site.url("/account"))
    assert "sign in" in (fresh.answer or "")  # tasks without the profile stay isolated


async def test_the_finishing_worker_sends_the_webhook(
    workers: EmbeddedWorkers, sessions: Sessions, site: LoginSite
) -> None:
    with Receiver() as receiver:
        async with sessions() as s:
            task, _ = await repositories.create_task(
                s,
                tenant_id="default",
                instruction=f"open the page and report what it says ({uuid.uuid4().hex[:8]})",
                start_url=site.url("/account"),
                max_steps=3,
                timeout_s=60,
                allowed_domains=(),
                metadata={},
                extra={"webhook_url": receiver.url},
            )
            await repo_webhooks.create_delivery(
                s, task_id=task.id, tenant_id="default", url=receiver.url
            )
            await s.commit()
        workers.submit(task.id)
        finished = await wait_terminal(sessions, task.id)
        async with asyncio.timeout(30):
            while True:
                async with sessions() as s:
                    row = await repo_webhooks.get_delivery(s, task_id=task.id)
                if row is not None and row.state != "pending":
                    break
                await asyncio.sleep(0.05)
    assert row.state == "delivered" and row.attempts == 1
    headers, body = receiver.requests[0]
    assert signature_ok(headers, body)
    sent = json.loads(body)["data"]
    assert sent["id"] == task.id and sent["status"] == finished.status
