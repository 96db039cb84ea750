"""SupervisedBrowser in the agent loop (workers/agent/people/supervised.py): sensitive actions wait
for a person, denials and timeouts reach the model as failed tool results, challenge pages
are handed off and a refused handoff fails the task with `bot_blocked`."""

from __future__ import annotations

import json
import time
from typing import Any

from workers.agent.context.history import CompressedHistory
from workers.agent.loop.loop import AgentLoop, run_worker_only
from workers.agent.people.supervised import SupervisedBrowser, Supervision, supervise
from workers.agent.protocols import (
    Action,
    ActionTarget,
    AgentTask,
    ApprovalRequest,
    Browser,
    Challenge,
    ToolResult,
)
from workers.agent.testing import (
    FakeLLM,
    InMemoryMemoryStore,
    InspectableBrowser,
    RecordingSink,
    ScriptedGate,
    reply,
)

HOME, GONE, PROTECTED = "http://site.test/", "http://site.test/gone", "http://site.test/protected"
PAGES = {
    HOME: [("button", "Delete account", GONE), ("link", "Protected", PROTECTED)],
    GONE: [("heading", "Account deleted", None)],
    PROTECTED: [("heading", "Members area", None)],
}
CLICK_DELETE = ("click", {"ref": "1:1"})


def task(start: str = HOME) -> AgentTask:
    return AgentTask("delete my account", start, 6, time.monotonic() + 60)


def done(answer: str = "ok", success: bool = True) -> Any:
    return reply(("done", {"answer": answer, "success": success}))


def tool_results(prompt: Any) -> list[dict[str, Any]]:
    return [json.loads(m["content"]) for m in prompt if m["role"] == "tool"]


def acted(browser: InspectableBrowser) -> list[str]:
    """Actions that reached the page (the read-only detect_* checks aside)."""
    return [a.name for a in browser.actions if not a.name.startswith("detect_")]


def supervised(gate: ScriptedGate, **kw: Any) -> tuple[InspectableBrowser, Browser]:
    inner = InspectableBrowser(PAGES)
    return inner, supervise(inner, gate, Supervision(**kw))


async def test_approved_click_runs_after_the_request() -> None:
    gate = ScriptedGate(["approved"])
    inner, browser = supervised(gate)
    llm = FakeLLM([reply(CLICK_DELETE), done("deleted")])
    outcome = await run_worker_only(task(), browser, llm, RecordingSink())
    assert outcome.success and inner.current == GONE
    [asked] = gate.requests
    assert asked.kind == "sensitive_action" and asked.url == HOME
    assert asked.element == 'button "Delete account"' and "delete" in asked.reason
    assert asked.screenshot and asked.details["rule"] == "keyword"


async def test_denied_click_never_runs_and_the_model_is_told() -> None:
    gate = ScriptedGate(["denied"])
    inner, browser = supervised(gate)
    llm = FakeLLM([reply(CLICK_DELETE), reply(CLICK_DELETE), done("not allowed", False)])
    outcome = await run_worker_only(task(), browser, llm, RecordingSink())
    assert acted(inner) == []  # the click never reached the page
    assert inner.current == HOME and not outcome.success
    first = tool_results(llm.prompts[1])[-1]
    assert first["error"] == "approval_denied" and "denied" in first["reason"]
    # asked once: the same click again is refused from memory, not asked again
    assert len(gate.requests) == 1
    assert tool_results(llm.prompts[2])[-1]["error"] == "approval_denied"


async def test_unanswered_request_is_a_handoff_timeout_dead_end() -> None:
    gate = ScriptedGate([])  # nobody answers: expired
    inner, browser = supervised(gate)
    llm = FakeLLM([reply(CLICK_DELETE), done("gave up", False)])
    sink = RecordingSink()
    loop = AgentLoop(task(), browser, llm, sink, CompressedHistory(task()))
    await loop.run()
    assert tool_results(llm.prompts[1])[-1]["error"] == "handoff_timeout"
    failed = [e for e in sink.of_type("action.executed") if e["action"] == "click"]
    assert failed[0]["error"] == "handoff_timeout" and inner.current == HOME
    [dead_end] = loop.ledger.dead_ends
    assert dead_end.cause == "handoff_timeout" and "Delete account" in dead_end.description


async def test_a_bulk_call_is_checked_before_any_step_runs() -> None:
    gate = ScriptedGate(["denied"])
    inner, browser = supervised(gate)
    bulk = (
        "bulk",
        {
            "actions": [
                {"tool": "hover", "ref": "1:2"},
                {"tool": "click", "ref": "1:1"},
            ]
        },
    )
    llm = FakeLLM([reply(bulk), done("no", False)])
    await run_worker_only(task(), browser, llm, RecordingSink())
    assert acted(inner) == [] and len(gate.requests) == 1


async def test_form_facts_come_from_the_inspector() -> None:
    gate = ScriptedGate(["approved"])
    inner, browser = supervised(gate)
    inner.targets["Protected"] = ActionTarget(
        role="button", name="Go", submits=True, form_action="https://evil.example/collect"
    )
    llm = FakeLLM([reply(("click", {"ref": "1:2"})), done()])
    await run_worker_only(task(), browser, llm, RecordingSink())
    assert gate.requests[0].details == {
        "rule": "cross_origin",
        "form_action": "https://evil.example/collect",
    }


async def test_supervision_off_is_the_bare_browser() -> None:
    inner = InspectableBrowser(PAGES)
    gate = ScriptedGate()
    assert supervise(inner, gate, Supervision(False, False)) is inner
    assert supervise(inner, None, Supervision()) is inner
    off = supervise(inner, gate, Supervision(sensitive_actions=False, challenges=True))
    llm = FakeLLM([reply(CLICK_DELETE), done()])
    outcome = await run_worker_only(task(), off, llm, RecordingSink())
    assert outcome.success and gate.requests == []


async def test_challenge_handed_to_a_person_who_clears_it() -> None:
    inner = InspectableBrowser(PAGES)
    inner.challenged.add(PROTECTED)

    def person(request: ApprovalRequest) -> None:
        inner.challenged.discard(request.url)

    gate = ScriptedGate(["approved"], on_request=person)
    browser = SupervisedBrowser(inner, gate, Supervision())
    llm = FakeLLM([done("in")])
    outcome = await run_worker_only(task(PROTECTED), browser, llm, RecordingSink())
    assert outcome.success
    [asked] = gate.requests
    assert asked.kind == "challenge" and asked.url == PROTECTED
    assert asked.details == {"kinds": ["cloudflare_interstitial"]} and asked.screenshot


async def test_approved_but_still_challenged_reloads_once_then_reports_bot_block() -> None:
    inner = InspectableBrowser(PAGES)
    inner.challenged.add(PROTECTED)
    browser = SupervisedBrowser(inner, ScriptedGate(["approved"]), Supervision())
    result = await browser.goto(PROTECTED)
    assert not result.success and result.error == "bot_block" and "still" in result.reason


async def test_denied_challenge_fails_the_task_bot_blocked() -> None:
    inner = InspectableBrowser(PAGES)
    inner.challenged.add(PROTECTED)
    gate = ScriptedGate(["denied"])
    llm = FakeLLM([reply(("click", {"ref": "1:2"})), done()])
    browser = SupervisedBrowser(inner, gate, Supervision(sensitive_actions=False))
    # a click that lands on a challenge page (not a navigate) is caught too
    outcome = await run_worker_only(task(), browser, llm, RecordingSink())
    assert (outcome.status, outcome.error) == ("failed", "bot_blocked")
    assert "denied" in outcome.reason and len(gate.requests) == 1


class ClearingSolver:
    def __init__(self, browser: InspectableBrowser) -> None:
        self.browser = browser
        self.seen: list[Challenge] = []

    async def solve(self, challenge: Challenge, browser: Browser) -> bool:
        self.seen.append(challenge)
        self.browser.challenged.discard(challenge.url)
        return True


async def test_an_operators_solver_goes_first() -> None:
    inner = InspectableBrowser(PAGES)
    inner.challenged.add(PROTECTED)
    solver = ClearingSolver(inner)
    gate = ScriptedGate(["denied"])
    browser = SupervisedBrowser(inner, gate, Supervision(solver=solver))
    result = await browser.goto(PROTECTED)
    assert result.success and "solver" in result.reason
    assert gate.requests == [] and solver.seen[0].kinds == ("cloudflare_interstitial",)


async def test_ordinary_failures_are_not_challenges() -> None:
    inner = InspectableBrowser(PAGES)
    inner.fail["click"] = ToolResult(False, "covered", error="covered")
    gate = ScriptedGate()
    browser = SupervisedBrowser(inner, gate, Supervision(sensitive_actions=False))
    llm = FakeLLM([reply(("click", {"ref": "1:2"})), done()])
    outcome = await run_worker_only(task(), browser, llm, RecordingSink())
    assert outcome.success and gate.requests == []


async def test_a_refused_challenge_is_a_per_domain_dead_end() -> None:
    inner = InspectableBrowser(PAGES)
    inner.challenged.add(PROTECTED)
    memory = InMemoryMemoryStore()
    browser = supervise(inner, ScriptedGate([]), Supervision(), memory)
    llm = FakeLLM([done()])
    outcome = await run_worker_only(task(PROTECTED), browser, llm, RecordingSink())
    assert outcome.error == "bot_blocked" and "expired" in outcome.reason
    [dead_end] = await memory.load_domain_dead_ends("site.test")
    assert (dead_end.url, dead_end.cause) == (PROTECTED, "bot_block")


async def test_a_script_the_task_does_not_allow_is_refused_without_asking() -> None:
    browser = InspectableBrowser(PAGES)
    gate = ScriptedGate()
    supervised = SupervisedBrowser(browser, gate, Supervision(scripts_allowed=False))
    await supervised.execute(Action("evaluate_script", {"script": "document.title"}))
    assert gate.requests == []
    allowed = SupervisedBrowser(InspectableBrowser(PAGES), gate, Supervision(scripts_allowed=True))
    await allowed.execute(Action("evaluate_script", {"script": "document.title"}))
    assert len(gate.requests) == 1


async def test_the_model_is_told_the_action_waited_for_a_person() -> None:
    """relay 2026-11-27 finding 6: an approved click read like any other click; each result
    now says it waited for a person's approval and what the person decided."""
    gate = ScriptedGate(["approved"])
    _, browser = supervised(gate)
    llm = FakeLLM([reply(CLICK_DELETE), done("deleted")])
    await run_worker_only(task(), browser, llm, RecordingSink())
    result = tool_results(llm.prompts[1])[-1]
    assert result["success"] and "waited" in result["reason"], result
    assert "a person approved it" in result["reason"] and "keyword rule" in result["reason"]
    assert result["reason"].index("approved") < result["reason"].index("then:")


async def test_a_denial_reads_as_a_decision_not_to_retry() -> None:
    for answers, error, said in (
        (["denied"], "approval_denied", "denied it (test): that is their decision"),
        ([], "handoff_timeout", "nobody answered in time"),
    ):
        _, browser = supervised(ScriptedGate(answers))
        llm = FakeLLM([reply(CLICK_DELETE), reply(CLICK_DELETE), done("no", False)])
        await run_worker_only(task(), browser, llm, RecordingSink())
        first, again = (tool_results(llm.prompts[i])[-1] for i in (1, 2))
        assert first["error"] == error and "waited" in first["reason"], first
        assert said in first["reason"] and "do not retry" in first["reason"]
        assert "not asked again" in again["reason"] and "do not retry" in again["reason"]
