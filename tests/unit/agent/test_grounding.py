"""A run whose start page never loaded does not succeed because the model says so."""

from __future__ import annotations

import time

from workers.agent.judge.grounding import Witness
from workers.agent.loop.loop import run_worker_only
from workers.agent.protocols import AgentOutcome, AgentTask, ToolResult
from workers.agent.testing import FakeBrowser, FakeLLM, RecordingSink, reply

HOME, OTHER = "http://site.test/", "http://site.test/other"
PAGES = {HOME: [("link", "Other", OTHER)], OTHER: [("button", "Buy", None)]}


def task(url: str) -> AgentTask:
    return AgentTask("read the page", url, 5, time.monotonic() + 60)


def done(answer: str = "it says hello") -> object:
    return reply(("done", {"answer": answer, "success": True}))


async def run(url: str, *script: object, browser: FakeBrowser | None = None):
    sink = RecordingSink()
    witness = Witness(sink)
    outcome = await run_worker_only(
        task(url), browser or FakeBrowser(PAGES), FakeLLM(list(script)), witness
    )
    return witness.judge(outcome, url), sink


async def test_unreachable_start_page_overrides_a_success_claim() -> None:
    outcome, sink = await run("http://gone.test/", done())
    assert (outcome.status, outcome.success) == ("failed", False)
    assert outcome.error == "start_page_unreachable"
    assert "http://gone.test/" in outcome.reason and outcome.answer == "it says hello"
    assert sink.of_type("action.executed")[0]["success"] is False  # events still pass through


async def test_http_error_page_is_not_a_loaded_page() -> None:
    browser = FakeBrowser(PAGES)
    browser.pages["http://down.test/"] = []
    browser.fail["navigate"] = ToolResult(
        False, "The server answered HTTP 503.", error="http_error"
    )

    async def goto(url: str) -> ToolResult:
        return browser.fail["navigate"]

    browser.goto = goto  # type: ignore[method-assign]
    outcome, _ = await run("http://down.test/", done(), browser=browser)
    assert outcome.error == "start_page_unreachable" and "HTTP 503" in outcome.reason


async def test_loaded_start_page_keeps_the_claim() -> None:
    outcome, _ = await run(HOME, done())
    assert (outcome.status, outcome.success, outcome.error) == ("succeeded", True, None)


async def test_recovering_with_a_later_navigation_counts_as_reached() -> None:
    outcome, _ = await run("http://gone.test/", reply(("navigate", {"url": HOME})), done())
    assert outcome.success and outcome.status == "succeeded"


async def test_failure_claims_and_tasks_without_start_url_are_untouched() -> None:
    outcome, _ = await run("http://gone.test/", reply(("done", {"answer": "no", "success": False})))
    assert (outcome.status, outcome.error) == ("failed", "gave_up")
    sink = RecordingSink()
    witness = Witness(sink)
    plain = await run_worker_only(
        AgentTask("say hi", None, 3, time.monotonic() + 60),
        FakeBrowser(PAGES),
        FakeLLM([done()]),
        witness,
    )
    assert witness.judge(plain, None) is plain and plain.success


async def test_a_person_clearing_the_page_counts_as_reached() -> None:
    witness = Witness(RecordingSink())
    await witness.emit(
        "action.executed",
        {
            "step": 0,
            "action": "navigate",
            "args": {"url": "http://wall.test/"},
            "success": False,
            "reason": "bot wall",
            "error": "bot_block",
            "page_changed": False,
        },
    )
    claimed = AgentOutcome("read it", True, "succeeded", 1, 1, 10, 1)
    assert witness.judge(claimed, "http://wall.test/").error == "start_page_unreachable"
    await witness.emit("approval.resolved", {"approval_id": "a1", "decision": "approved"})
    assert witness.judge(claimed, "http://wall.test/") is claimed
