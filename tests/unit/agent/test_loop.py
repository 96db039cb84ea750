"""Loop control flow with in-test doubles: batches, feedback, nudges, limits, ends.

The Worker-only loop shares this control flow with the brain (tests/unit/agent/test_brain.py
covers what the Planner and the Ledger add), so these tests run the Worker alone.
"""

from __future__ import annotations

import asyncio
import json
import time

from workers.agent.errors import GuardViolation, LLMUnavailable
from workers.agent.loop import run_worker_only as run_agent
from workers.agent.naive import run_naive
from workers.agent.protocols import AgentTask, LLMReply, ToolCall, ToolResult
from workers.agent.testing import FakeBrowser, FakeLLM, RecordingSink, reply
from workers.agent.tools import PARSE_ERROR_KEY, RAW_ARGUMENTS_KEY

HOME, LIST, ITEM = "http://site.test/", "http://site.test/list", "http://site.test/item"
PAGES = {
    HOME: [("link", "List", LIST), ("textbox", "Search", None), ("button", "Noop", None)],
    LIST: [("link", "Item", ITEM), ("button", "Noop", None)],
    ITEM: [("button", "Buy", None)],
}


def task(max_steps: int = 10, timeout: float = 60.0) -> AgentTask:
    return AgentTask("buy the item", HOME, max_steps, time.monotonic() + timeout)


def done(answer: str = "bought", success: bool = True):
    return reply(("done", {"answer": answer, "success": success}))


def tool_messages(prompt) -> list[dict]:
    return [json.loads(m["content"]) for m in prompt if m["role"] == "tool"]


async def test_done_on_first_step_succeeds_with_usage_and_events() -> None:
    browser, llm, sink = FakeBrowser(PAGES), FakeLLM([done("42")]), RecordingSink()
    outcome = await run_agent(task(), browser, llm, sink)
    assert (outcome.status, outcome.success, outcome.answer) == ("succeeded", True, "42")
    assert (outcome.steps, outcome.llm_calls, outcome.input_tokens, outcome.output_tokens) == (
        1,
        1,
        100,
        10,
    )
    assert [t for t, _ in sink.events] == [
        "action.executed",  # step 0: the start page
        "step.started",
        "observation",
        "llm.call",
        "action.executed",
    ]
    assert sink.of_type("observation")[0]["url"] == HOME
    assert '[1:1] link "List"' in sink.of_type("observation")[0]["preview"]
    assert sink.of_type("llm.call")[0]["role"] == "worker" and llm.roles == ["worker"]
    assert sink.screenshots[1].startswith(b"\xff\xd8")


async def test_page_change_aborts_the_rest_of_the_batch() -> None:
    batch = reply(("click", {"ref": "1:1"}), ("type", {"ref": "1:2", "text": "x"}))
    llm = FakeLLM([batch, done()])
    browser = FakeBrowser(PAGES)
    outcome = await run_agent(task(), browser, llm, RecordingSink())
    assert outcome.success and outcome.steps == 2
    assert [a.name for a in browser.actions] == ["click"]
    results = tool_messages(llm.prompts[1])
    assert results[0]["page_changed"] is True
    assert results[1]["error"] == "skipped" and "changed the page" in results[1]["reason"]


async def test_at_most_five_actions_per_step() -> None:
    many = reply(*[("hover", {"ref": "1:3"}) for _ in range(7)])
    llm = FakeLLM([many, done()])
    browser = FakeBrowser(PAGES)
    await run_agent(task(), browser, llm, RecordingSink())
    assert len(browser.actions) == 5
    results = tool_messages(llm.prompts[1])
    assert len(results) == 7 and [r["success"] for r in results[5:]] == [False, False]
    assert "at most 5" in results[6]["reason"]


async def test_model_mistakes_are_fed_back_not_fatal() -> None:
    broken = ToolCall("c9", "click", {PARSE_ERROR_KEY: "Expecting ','", RAW_ARGUMENTS_KEY: "{x"})
    bad_json = LLMReply(None, (broken,), 100, 10, "m", 0.0, "tool_calls")
    script = [reply(("click", {"ref": "twelve"})), reply(("fly", {})), bad_json, done()]
    llm = FakeLLM(script)
    browser, sink = FakeBrowser(PAGES), RecordingSink()
    outcome = await run_agent(task(), browser, llm, sink)
    assert outcome.success and browser.actions == []
    results = [tool_messages(llm.prompts[i])[0] for i in (1, 2, 3)]
    assert "invalid ref 'twelve'" in results[0]["reason"]
    assert "unknown tool 'fly'" in results[1]["reason"]
    assert "not valid JSON" in results[2]["reason"]
    assert all(r["error"] == "invalid_tool_call" and "hint" in r for r in results)
    assistant = next(m for m in llm.prompts[3] if m["role"] == "assistant")
    assert assistant["tool_calls"][0]["function"]["arguments"] == "{x"


async def test_a_failed_action_ends_the_batch() -> None:
    """Relay finding (issue 26, use-spinner): `type -> failed value_mismatch; click Submit ->
    ok` sent a wrong form. The calls after a failed one were decided before it: they are
    answered `skipped` with the reason, and the browser never sees them."""
    browser = FakeBrowser(PAGES)
    refused = ToolResult(success=False, reason="the field now holds '0'", error="value_mismatch")
    browser.fail["type"] = refused
    batch = reply(
        ("type", {"ref": "1:2", "text": "-10"}),
        ("click", {"ref": "1:3"}),
        ("hover", {"ref": "1:3"}),
    )
    llm = FakeLLM([batch, done()])
    outcome = await run_agent(task(), browser, llm, RecordingSink())
    assert outcome.success
    assert [a.name for a in browser.actions] == ["type"]  # the submit never ran
    results = tool_messages(llm.prompts[1])
    assert results[0]["error"] == "value_mismatch"
    for skipped in results[1:]:
        assert skipped["error"] == "skipped"
        assert "earlier action of this turn failed (type: value_mismatch)" in skipped["reason"]


async def test_stale_ref_failure_reaches_the_model_with_a_hint() -> None:
    llm = FakeLLM([reply(("click", {"ref": "0:3"})), done()])
    await run_agent(task(), FakeBrowser(PAGES), llm, RecordingSink())
    result = tool_messages(llm.prompts[1])[0]
    assert result["error"] == "stale_ref" and "latest snapshot" in result["hint"]


async def test_repeating_a_failed_action_is_flagged() -> None:
    browser = FakeBrowser(PAGES)
    browser.fail["hover"] = ToolResult(success=False, reason="nothing", error="no_effect")
    # the same element on the next snapshot: a new ref, the same dead end
    llm = FakeLLM([reply(("hover", {"ref": "1:3"})), reply(("hover", {"ref": "2:3"})), done()])
    await run_agent(task(), browser, llm, RecordingSink())
    assert "no visible effect" in tool_messages(llm.prompts[1])[0]["hint"]
    assert "already tried exactly this" in tool_messages(llm.prompts[2])[0]["hint"]


async def test_no_tool_call_is_nudged_once_then_gives_up() -> None:
    text = LLMReply("I am thinking", (), 50, 5, "m", 0.0, "stop")
    llm = FakeLLM([text, done()])
    outcome = await run_agent(task(), FakeBrowser(PAGES), llm, RecordingSink())
    assert outcome.success and outcome.steps == 2
    assert "without calling a tool" in llm.prompts[1][-1]["content"]

    llm = FakeLLM([text, text])
    outcome = await run_agent(task(), FakeBrowser(PAGES), llm, RecordingSink())
    assert (outcome.status, outcome.error, outcome.answer) == ("failed", "gave_up", "I am thinking")


async def test_max_steps_exhausted_fails() -> None:
    llm = FakeLLM([reply(("scroll", {"direction": "down"})) for _ in range(3)])
    outcome = await run_agent(task(max_steps=3), FakeBrowser(PAGES), llm, RecordingSink())
    assert (outcome.status, outcome.error, outcome.steps, outcome.llm_calls) == (
        "failed",
        "max_steps",
        3,
        3,
    )
    assert "Only 0 step(s) left" in llm.prompts[-1][-1]["content"]


async def test_cancel_is_checked_before_each_step() -> None:
    sink = RecordingSink(cancel_after_checks=4)  # checks: before each step and each action
    llm = FakeLLM([reply(("scroll", {"direction": "down"})) for _ in range(5)])
    outcome = await run_agent(task(), FakeBrowser(PAGES), llm, sink)
    assert (outcome.status, outcome.steps, outcome.llm_calls) == ("cancelled", 2, 2)


async def test_cancel_is_checked_before_each_action() -> None:
    """A cancel that arrives during the model call stops its `done` from running."""
    sink = RecordingSink(cancel_after_checks=1)
    llm = FakeLLM([reply(("done", {"answer": "too late", "success": True}))])
    outcome = await run_agent(task(), FakeBrowser(PAGES), llm, sink)
    assert (outcome.status, outcome.answer, outcome.llm_calls) == ("cancelled", None, 1)


async def test_deadline_already_passed_times_out() -> None:
    outcome = await run_agent(task(timeout=-1), FakeBrowser(PAGES), FakeLLM([]), RecordingSink())
    assert (outcome.status, outcome.error, outcome.steps) == ("timed_out", "timeout", 0)


async def test_deadline_interrupts_a_hanging_llm_call() -> None:
    # 1 s: the start page and the first observation fit in it on a loaded machine (at 0.2 s a
    # load average of 20 ran the deadline out before step 1); the model call never returns
    outcome = await run_agent(task(timeout=1.0), FakeBrowser(PAGES), FakeLLM([]), RecordingSink())
    assert (outcome.status, outcome.error, outcome.steps) == ("timed_out", "timeout", 1)


async def test_llm_failure_ends_the_run_with_llm_error() -> None:
    llm = FakeLLM([LLMUnavailable("endpoint down")])
    outcome = await run_agent(task(), FakeBrowser(PAGES), llm, RecordingSink())
    assert (outcome.status, outcome.error) == ("failed", "llm_error")
    assert outcome.reason == "endpoint down"


async def test_guard_violation_on_start_page_is_fatal() -> None:
    browser = FakeBrowser(PAGES)
    browser.goto_error = GuardViolation("start_url not allowed")
    outcome = await run_agent(task(), browser, FakeLLM([done()]), RecordingSink())
    assert (outcome.status, outcome.error, outcome.llm_calls) == ("failed", "guard_violation", 0)


async def test_done_with_failure_is_a_failed_run_with_the_answer() -> None:
    llm = FakeLLM([done("out of stock", success=False)])
    outcome = await run_agent(task(), FakeBrowser(PAGES), llm, RecordingSink())
    assert (outcome.status, outcome.success, outcome.error, outcome.answer) == (
        "failed",
        False,
        "gave_up",
        "out of stock",
    )


async def test_secret_text_is_redacted_in_events() -> None:
    secret = reply(("type", {"ref": "1:2", "text": "hunter2", "secret": True}))
    sink = RecordingSink()
    await run_agent(task(), FakeBrowser(PAGES), FakeLLM([secret, done()]), sink)
    typed = [e for e in sink.of_type("action.executed") if e["action"] == "type"]
    assert typed[0]["args"]["text"] == "***"
    assert "hunter2" not in json.dumps(sink.events)


async def test_multi_step_navigation_and_naive_baseline_agree() -> None:
    def script():
        return [reply(("click", {"ref": "1:1"})), reply(("click", {"ref": "2:1"})), done("at item")]

    for runner in (run_agent, run_naive):
        browser, llm = FakeBrowser(PAGES), FakeLLM(script())
        outcome = await runner(task(), browser, llm, RecordingSink())
        assert outcome.success and outcome.answer == "at item" and browser.current == ITEM
        last = llm.prompts[-1]
        pages = sum('<page_content untrusted="true">' in str(m["content"]) for m in last[1:])
        assert pages == (3 if runner is run_naive else 1)


async def test_deadline_bounds_the_start_page_load() -> None:
    class HangingBrowser(FakeBrowser):
        async def goto(self, url: str) -> ToolResult:
            await asyncio.Event().wait()
            raise AssertionError("unreachable")

    browser = HangingBrowser(PAGES)
    outcome = await run_agent(task(timeout=0.2), browser, FakeLLM([done()]), RecordingSink())
    assert (outcome.status, outcome.steps, outcome.llm_calls) == ("timed_out", 0, 0)


async def test_done_batched_behind_a_failed_action_is_not_taken() -> None:
    optimistic = reply(
        ("type", {"ref": "9:2", "text": "x"}),  # stale ref: fails
        ("done", {"answer": "typed it", "success": True}),
    )
    llm = FakeLLM([optimistic, done("typed after all")])
    outcome = await run_agent(task(), FakeBrowser(PAGES), llm, RecordingSink())
    assert outcome.answer == "typed after all" and outcome.steps == 2
    results = tool_messages(llm.prompts[1])
    assert results[0]["error"] == "stale_ref"
    assert results[1]["error"] == "skipped" and "earlier action" in results[1]["reason"]
    ids = [m["tool_call_id"] for m in llm.prompts[1] if m["role"] == "tool"]
    assert ids == ["c1", "c2"]  # every call of the batch is still answered, in order


async def test_done_after_successful_actions_in_the_same_batch_finishes() -> None:
    batch = reply(
        ("type", {"ref": "1:2", "text": "x"}), ("done", {"answer": "  exact\n", "success": True})
    )
    outcome = await run_agent(task(), FakeBrowser(PAGES), FakeLLM([batch]), RecordingSink())
    assert outcome.success and outcome.answer == "  exact\n" and outcome.steps == 1


async def test_a_page_that_changed_during_the_model_call_is_refreshed_before_acting() -> None:
    """Issue 26 item 7: the timer page moved on while the model thought; the model is told
    its view was refreshed and decides again, and its stale choice is not carried out."""
    browser, sink = FakeBrowser(PAGES), RecordingSink()

    def slow_choice(messages):  # the page's timer fires while the model thinks
        browser.pages[HOME] = [*PAGES[HOME][:2], ("button", "Time's up", None)]
        browser.text_extra = "\nTime's up"
        return reply(("click", {"ref": "1:3"}))

    llm = FakeLLM([slow_choice, done("too late")])
    outcome = await run_agent(task(), browser, llm, sink)
    assert outcome.answer == "too late"
    assert [a.name for a in browser.actions] == []  # the stale click never ran
    second = "\n".join(str(m.get("content")) for m in llm.prompts[1])
    assert "[view refreshed]" in second and "Time's up" in second
    assert len(sink.of_type("observation")) == 2


async def test_a_page_that_ticks_keeps_moves_whose_targets_did_not_change() -> None:
    """Issue 31 item 2: a clock ticked and a readout moved while the model thought; its
    click on an unchanged button runs (on the new ref) and its done() ends the task, with
    no second model call and no refresh note."""
    browser, sink = FakeBrowser(PAGES), RecordingSink()

    def choice(messages):
        browser.text_extra = '\n- text "12:01:07"\n- text "speed 561"'
        return reply(("click", {"ref": "1:3"}), ("done", {"answer": "won", "success": True}))

    llm = FakeLLM([choice])
    outcome = await run_agent(task(), browser, llm, sink)
    assert outcome.success and outcome.answer == "won" and len(llm.prompts) == 1
    assert [(a.name, a.args.get("ref")) for a in browser.actions] == [("click", "2:3")]


async def test_done_and_more_tools_are_never_thrown_away_by_a_refresh() -> None:
    browser, sink = FakeBrowser(PAGES), RecordingSink()

    def win(messages):  # the success screen replaced every control
        browser.pages[HOME] = [("link", "Play again", None)]
        browser.text_extra = "\nYou won!"
        return reply(
            ("more_tools", {"enable": ["read_download"]}),
            ("done", {"answer": "the code is 4417", "success": True}),
        )

    llm = FakeLLM([win])
    outcome = await run_agent(task(), browser, llm, sink)
    assert outcome.success and outcome.answer == "the code is 4417" and len(llm.prompts) == 1


async def test_an_unchanged_page_is_not_refreshed() -> None:
    browser, llm, sink = FakeBrowser(PAGES), FakeLLM([done("42")]), RecordingSink()
    await run_agent(task(), browser, llm, sink)
    assert len(llm.prompts) == 1 and len(sink.of_type("observation")) == 1


async def test_a_new_snapshot_of_the_same_text_keeps_the_models_choice() -> None:
    """A change the text does not show (a timer) moved the snapshot version while the model
    thought: its click is carried over to the new version and runs, with no second call."""
    browser, sink = FakeBrowser(PAGES), RecordingSink()

    def choice(messages):
        browser.hidden_changes += 1
        return reply(
            ("click", {"ref": "1:2"}), ("bulk", {"actions": [{"tool": "click", "ref": "1:2"}]})
        )

    llm = FakeLLM([choice, done("ok")])
    await run_agent(task(), browser, llm, sink)
    assert [(a.name, a.args.get("ref")) for a in browser.actions][:1] == [("click", "2:2")]
    second = "\n".join(str(m.get("content")) for m in llm.prompts[1])
    assert "stale_ref" not in second and "[view refreshed]" not in second
    assert len(llm.prompts) == 2  # the choice, then done: no re-decision
