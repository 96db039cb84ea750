"""The answer check through a real run (issue 10): real Chromium on a local order page, the
openai client against the scripted model, the embedded worker on SQLite. A value the page
shows is verified; a made-up code gets one feedback round and is then flagged; a total the
model computed from the page's prices passes as derived."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import AsyncIterator, Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.api.schemas import task_out
from app.contracts import GroundingVerdict, TaskStatus
from app.db import repositories
from app.db.migrate import upgrade
from app.events import MemoryEventBus
from tests.integration.workers.test_jobs import stored_events, wait_terminal, worker_settings
from tests.support.background import BackgroundServer
from tests.support.llm_server import Reply, ScriptedLLMServer, prompt_text, text_reply, tool_reply
from tests.support.policies import latest_observation
from workers.agent.judge.answer_check import MARK
from workers.process.embedded import EmbeddedWorkers

pytestmark = [pytest.mark.browser]

Sessions = async_sessionmaker[AsyncSession]
ORDER_PAGE = b"""<!doctype html><html><head><title>Order</title></head><body>
<h1>Order Q-4821</h1><table>
<tr><td>Widget</td><td>$12.50</td></tr><tr><td>Cable</td><td>$7.25</td></tr>
<tr><td>Stand</td><td>$3.10</td></tr></table></body></html>"""
ANSWERS = {
    "seen": "Order Q-4821; the widget costs $12.50",
    "madeup": "Your order code is Q-9917",
    "sum": "The three items add up to $22.85",
}
MODE = re.compile(r"\(mode=(\w+)\)")


class OrderSite(BackgroundServer):
    def __init__(self) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                return

            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("content-type", "text/html; charset=utf-8")
                self.send_header("content-length", str(len(ORDER_PAGE)))
                self.end_headers()
                self.wfile.write(ORDER_PAGE)

        super().__init__(Handler)


def order_model(request: dict[str, Any]) -> Reply:
    """Answers by the task's mode once it has seen the page; sticks to it when asked."""
    text = prompt_text(request)
    mode = MODE.search(text)
    answer = ANSWERS[mode.group(1) if mode else "seen"]
    if MARK in text:
        return text_reply(answer)  # keeps its answer: a made-up code stays made up
    if "Q-4821" not in latest_observation(request):
        return tool_reply(("wait", {"seconds": 0.2}))
    return tool_reply(("done", {"answer": answer, "success": True}))


@pytest.fixture(scope="module")
def db_url(tmp_path_factory: pytest.TempPathFactory) -> str:
    url = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('answers')}/webagent.db"
    upgrade(url)
    return url


@pytest.fixture(scope="module")
def site() -> Iterator[OrderSite]:
    with OrderSite() as running:
        yield running


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedLLMServer]:
    with ScriptedLLMServer(order_model) as server:
        yield server


@pytest.fixture(scope="module")
async def workers(
    chromium_path: str, db_url: str, model: ScriptedLLMServer
) -> AsyncIterator[EmbeddedWorkers]:
    embedded = EmbeddedWorkers(worker_settings(chromium_path, db_url, model), MemoryEventBus(), 1)
    await asyncio.to_thread(embedded.start)
    try:
        yield embedded
    finally:
        await asyncio.to_thread(embedded.stop)


async def run(workers: EmbeddedWorkers, sessions: Sessions, site: OrderSite, mode: str) -> Any:
    async with sessions() as s:
        task, _ = await repositories.create_task(
            s,
            tenant_id="default",
            instruction=f"read the order page (mode={mode}) {uuid.uuid4().hex[:6]}",
            start_url=site.origin + "/order",
            max_steps=4,
            timeout_s=60,
            allowed_domains=(),
            metadata={},
        )
        await s.commit()
    workers.submit(task.id)
    return await wait_terminal(sessions, task.id)


def checks_asked(model: ScriptedLLMServer, task: Any) -> int:
    return sum(
        1 for r in model.requests if MARK in prompt_text(r) and task.instruction in prompt_text(r)
    )


async def test_an_answer_the_page_shows_is_verified(
    workers: EmbeddedWorkers, sessions: Sessions, site: OrderSite, model: ScriptedLLMServer
) -> None:
    task = await run(workers, sessions, site, "seen")
    assert task.status == TaskStatus.succeeded, task.error_detail
    grounding = task_out(task).result.grounding
    assert grounding is not None and grounding.verdict == GroundingVerdict.verified
    assert (grounding.checked, grounding.unseen) == (2, [])
    assert checks_asked(model, task) == 0
    finished = (await stored_events(sessions, task.id))[-1].data
    assert finished["grounding"]["verdict"] == "verified"


async def test_a_made_up_code_gets_one_feedback_round_then_is_flagged(
    workers: EmbeddedWorkers, sessions: Sessions, site: OrderSite, model: ScriptedLLMServer
) -> None:
    task = await run(workers, sessions, site, "madeup")
    assert task.status == TaskStatus.succeeded and task.answer == ANSWERS["madeup"]
    grounding = task_out(task).result.grounding
    assert grounding is not None and grounding.verdict == GroundingVerdict.unverified
    assert grounding.unseen == ["Q-9917"] and not grounding.corrected
    assert checks_asked(model, task) == 1
    calls = [r for r in await stored_events(sessions, task.id) if r.type == "llm.call"]
    assert calls[-1].data["role"] == "worker"  # the feedback call is metered like any other


async def test_a_total_computed_from_the_page_passes_as_derived(
    workers: EmbeddedWorkers, sessions: Sessions, site: OrderSite, model: ScriptedLLMServer
) -> None:
    task = await run(workers, sessions, site, "sum")
    grounding = task_out(task).result.grounding
    assert grounding is not None and grounding.verdict == GroundingVerdict.verified
    assert grounding.derived == ["$22.85"] and checks_asked(model, task) == 0
