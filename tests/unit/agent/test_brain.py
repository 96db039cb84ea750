"""The brain around the Worker: Planner cadence and verification, Ledger ingest, dead ends
across runs, eviction before each call, the prompt's cache order and time awareness."""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from workers.agent.loop.brain import BrainConfig, describe_action
from workers.agent.loop.loop import run_agent
from workers.agent.protocols import Action, AgentTask, LLMReply, ToolResult
from workers.agent.testing import (
    BRAIN_SIDE,
    FakeBrowser,
    FakeLLM,
    InMemoryMemoryStore,
    RecordingSink,
    default_summarizer,
    message_text,
    reply,
)

HOME, LIST, ITEM = "http://shop.test/", "http://shop.test/list", "http://shop.test/item"
PAGES = {
    HOME: [("link", "List", LIST), ("link", "Express", HOME), ("button", "Noop", None)],
    LIST: [("link", "Item", ITEM)],
    ITEM: [("button", "Buy", None)],
}


def task(max_steps: int = 20, zone: str = "UTC") -> AgentTask:
    return AgentTask("buy the item", HOME, max_steps, time.monotonic() + 60, time_zone=zone)


def done(answer: str = "bought", success: bool = True) -> LLMReply:
    return reply(("done", {"answer": answer, "success": success}))


def scroll() -> LLMReply:
    return reply(("scroll", {"direction": "down"}))


def with_notes(r: LLMReply, **notes: Any) -> LLMReply:
    return LLMReply(json.dumps(notes), r.tool_calls, 100, 10, "m", 0.0, "tool_calls")


def planner(*verdicts: Mapping[str, Any]):
    """A scripted Planner: each call takes the next verdict (the last one repeats)."""
    queue = list(verdicts)

    def answer(messages: Sequence[Mapping[str, Any]]) -> LLMReply:
        verdict = queue.pop(0) if len(queue) > 1 else queue[0]
        body = {
            "observation": "",
            "challenges": "",
            "next_steps": [],
            "final_answer": "",
            "reasoning": "",
            "done": False,
            **verdict,
        }
        return LLMReply(json.dumps(body), (), 40, 10, "planner", 0.0, "stop")

    return answer


def side(*verdicts: Mapping[str, Any]) -> dict:
    return {"planner": planner(*verdicts), "summarizer": default_summarizer}


def roles(llm: FakeLLM) -> list[str]:
    return [role for role, _, _ in llm.calls]


async def test_planner_runs_every_n_steps_and_verifies_the_claim() -> None:
    llm = FakeLLM([scroll() for _ in range(8)] + [done()], BRAIN_SIDE)
    sink = RecordingSink()
    outcome = await run_agent(task(), FakeBrowser(PAGES), llm, sink)
    assert outcome.success and outcome.steps == 9
    assert roles(llm).count("planner") == 3  # steps 4 and 8, then the completion claim
    triggers = [e["trigger"] for e in sink.of_type("plan.updated")]
    assert triggers == ["periodic", "periodic", "completion"]
    assert [e["step"] for e in sink.of_type("plan.updated")] == [4, 8, 9]
    # each model call metered once: one llm.call per call, and the outcome agrees
    assert len(sink.of_type("llm.call")) == len(llm.calls) == outcome.llm_calls


async def test_planner_interval_is_configurable() -> None:
    llm = FakeLLM([scroll() for _ in range(5)] + [done()], BRAIN_SIDE)
    sink = RecordingSink()
    config = BrainConfig(planner_every_n_steps=2, review_when_progressing=True)
    await run_agent(task(), FakeBrowser(PAGES), llm, sink, config=config)
    assert [e["step"] for e in sink.of_type("plan.updated")] == [2, 4, 6, 6]


async def test_a_run_that_moves_on_gets_no_periodic_review_and_a_loop_gets_one() -> None:
    """Issue 33: the periodic review is a model call only when the steps since the last
    one show a loop (the same action on the same page state twice) or a standstill."""
    pages = {
        f"http://shop.test/{n}": [("link", "Next", f"http://shop.test/{n + 1}")] for n in range(12)
    }
    moving = [reply(("click", {"ref": f"{v}:1"})) for v in range(1, 10)]
    llm = FakeLLM([*moving, done()], BRAIN_SIDE)
    sink = RecordingSink()
    start = AgentTask("walk", "http://shop.test/0", 20, time.monotonic() + 60)
    outcome = await run_agent(start, FakeBrowser(pages), llm, sink)
    assert outcome.success and outcome.steps == 10
    assert [e["trigger"] for e in sink.of_type("plan.updated")] == ["completion"]
    # the same run scrolling in place: its steps repeat on one page state
    llm = FakeLLM([scroll() for _ in range(9)] + [done()], BRAIN_SIDE)
    sink = RecordingSink()
    await run_agent(task(), FakeBrowser(PAGES), llm, sink)
    triggers = [(e["step"], e["trigger"]) for e in sink.of_type("plan.updated")]
    assert triggers == [(4, "periodic"), (8, "periodic"), (10, "completion")]


async def test_planner_at_start_plans_before_the_first_worker_step() -> None:
    llm = FakeLLM([done()], BRAIN_SIDE)
    sink = RecordingSink()
    await run_agent(
        task(), FakeBrowser(PAGES), llm, sink, config=BrainConfig(planner_at_start=True)
    )
    assert roles(llm) == ["planner", "worker", "planner"]
    assert [e["trigger"] for e in sink.of_type("plan.updated")] == ["start", "completion"]
    first = sink.of_type("plan.updated")[0]
    assert [i["text"] for i in first["checklist"]] == ["Carry out the task", "Report the result"]


async def test_every_success_claim_is_verified_and_k_rejections_end_the_run_failed() -> None:
    """Issue 22: a second `done` goes through the Planner too; after K rejections the run
    ends failed with the Planner's reason (seed 001 App. A.4's pass, bounded)."""
    rejecting = side({"done": False, "challenges": "the cart is still empty"})
    llm = FakeLLM([done("early"), scroll(), done("second")], rejecting)
    sink = RecordingSink()
    outcome = await run_agent(
        task(), FakeBrowser(PAGES), llm, sink, config=BrainConfig(max_rejections=2)
    )
    assert (outcome.success, outcome.status, outcome.steps) == (False, "failed", 3)
    assert roles(llm).count("planner") == 2  # both claims verified
    assert "the cart is still empty" in outcome.reason and outcome.answer == "second"
    assert "the cart is still empty" in llm.prompts[1][-1]["content"]


async def test_a_rejected_claim_continues_and_an_accepted_one_ends_the_run() -> None:
    verdicts = side({"done": False, "challenges": "not yet"}, {"done": True, "final_answer": "2"})
    llm = FakeLLM([done("early"), scroll(), done("second")], verdicts)
    outcome = await run_agent(task(), FakeBrowser(PAGES), llm, RecordingSink())
    assert (outcome.success, outcome.answer, outcome.steps) == (True, "2", 3)
    assert roles(llm).count("planner") == 2


async def test_the_checklist_comes_from_the_workers_first_turn() -> None:
    """Issue 22: the 2-6 item checklist exists from step 1, without a Planner call."""
    items = ["Open the item list", "Open the item", "Buy the item"]
    llm = FakeLLM([with_notes(scroll(), checklist=items), done()], BRAIN_SIDE)
    sink = RecordingSink()
    await run_agent(task(), FakeBrowser(PAGES), llm, sink)
    assert roles(llm)[:2] == ["worker", "worker"]  # no Planner call before the claim
    first = llm.prompts[0][-1]["content"]
    assert '"checklist": [' in first  # the first turn is asked for it
    second = "\n".join(str(m["content"]) for m in llm.prompts[1])
    assert "[ ] 1. Open the item list" in second and "[ ] 3. Buy the item" in second
    assert '"checklist": [' not in llm.prompts[1][-1]["content"]  # asked once


async def test_only_the_planner_declares_done() -> None:
    llm = FakeLLM(
        [scroll(), scroll(), scroll(), scroll()], side({"done": True, "final_answer": "42"})
    )
    outcome = await run_agent(task(), FakeBrowser(PAGES), llm, RecordingSink())
    # Algorithm 1 line 12: the Planner at step 4 returns its final answer before the Worker
    assert (outcome.success, outcome.answer, outcome.steps) == (True, "42", 4)
    assert roles(llm) == ["worker", "worker", "worker", "planner"]


async def test_planner_answer_replaces_the_claimed_answer() -> None:
    llm = FakeLLM([done("some text")], side({"done": True, "final_answer": "The item costs $3"}))
    outcome = await run_agent(task(), FakeBrowser(PAGES), llm, RecordingSink())
    assert outcome.answer == "The item costs $3"


async def test_a_first_step_failure_claim_needs_no_planner() -> None:
    llm = FakeLLM([done("impossible", success=False)], BRAIN_SIDE)
    outcome = await run_agent(task(), FakeBrowser(PAGES), llm, RecordingSink())
    assert (outcome.status, outcome.error) == ("failed", "gave_up")
    assert roles(llm) == ["worker"]


async def test_repeated_failures_call_the_planner_early() -> None:
    browser = FakeBrowser(PAGES)
    browser.fail["hover"] = ToolResult(success=False, reason="nothing", error="no_effect")
    hovers = [reply(("hover", {"ref": f"{v}:3"})) for v in (1, 2)]
    llm = FakeLLM([*hovers, done()], BRAIN_SIDE)
    sink = RecordingSink()
    await run_agent(task(), browser, llm, sink)
    first = sink.of_type("plan.updated")[0]
    assert (first["step"], first["trigger"]) == (3, "failures")


async def test_failed_actions_become_dead_ends_that_the_next_run_starts_with() -> None:
    store = InMemoryMemoryStore()
    browser = FakeBrowser(PAGES)
    browser.fail["hover"] = ToolResult(success=False, reason="covered by a banner", error="covered")
    llm = FakeLLM([reply(("hover", {"ref": "1:3"})), done()], BRAIN_SIDE)
    sink = RecordingSink()
    await run_agent(task(), browser, llm, sink, memory=store)
    recorded = sink.of_type("dead_end.recorded")
    assert recorded[0]["description"].startswith('hover button "Noop" failed: covered by a banner')
    assert (recorded[0]["url"], recorded[0]["cause"], recorded[0]["domain"]) == (
        HOME,
        "postcondition_miss",
        "shop.test",
    )
    assert [d.description for d in store.domain_dead_ends["shop.test"]] == [
        recorded[0]["description"]
    ]
    ledger_in_prompt = next(m for m in llm.prompts[1] if "<ledger>" in str(m["content"]))
    assert 'hover button "Noop"' in ledger_in_prompt["content"]

    second, before = FakeLLM([done()], BRAIN_SIDE), len(store.snapshots)
    await run_agent(task(), FakeBrowser(PAGES), second, RecordingSink(), memory=store)
    first_prompt = second.prompts[0]
    ledger = next(m for m in first_prompt if "<ledger>" in str(m["content"]))
    assert 'hover button "Noop" failed' in ledger["content"]
    assert store.snapshots[before]["remembered"][0]["description"] == recorded[0]["description"]


async def test_a_move_the_worker_calls_failed_becomes_a_dead_end() -> None:
    first = reply(("click", {"ref": "1:2"}))  # "Express" reloads the same page: no progress
    second = with_notes(
        reply(("click", {"ref": "2:1"})), evaluation_previous_goal="Failed: express went nowhere"
    )
    llm = FakeLLM([first, second, done()], BRAIN_SIDE)
    store, sink = InMemoryMemoryStore(), RecordingSink()
    await run_agent(task(), FakeBrowser(PAGES), llm, sink, memory=store)
    dead = store.domain_dead_ends["shop.test"][0]
    assert dead.cause == "postcondition_miss" and dead.description.startswith(
        'click link "Express"'
    )
    assert dead.signature == 'click link "express"'


async def test_facts_and_the_checklist_feed_the_ledger() -> None:
    step = with_notes(
        scroll(),
        memory="on home",
        facts={"price": "$3"},
        checklist={"id": 1, "status": "completed"},
    )
    noted = reply(("record_fact", {"key": "stock", "value": "4 left"}))
    llm = FakeLLM([step, noted, done()], BRAIN_SIDE)
    store, sink = InMemoryMemoryStore(), RecordingSink()
    await run_agent(task(), FakeBrowser(PAGES), llm, sink, memory=store)
    fact = sink.of_type("fact.recorded")[0]
    assert (fact["key"], fact["value"], fact["source_step"]) == ("price", "$3", 1)
    assert [(d, f.key) for d, f in store.facts] == [("shop.test", "price"), ("shop.test", "stock")]
    snapshot = store.latest
    assert snapshot["recent"][0]["memory"] == "on home"
    assert [s["step"] for s in snapshot["recent"]] == [1, 2, 3]
    assert [f["key"] for f in snapshot["facts"]] == ["stock", "price"]  # most recent first


async def test_prompt_order_puts_the_page_last_and_eviction_runs_before_each_call() -> None:
    llm = FakeLLM([scroll(), scroll(), done()], BRAIN_SIDE)
    sink = RecordingSink()
    await run_agent(task(zone="Europe/Oslo"), FakeBrowser(PAGES), llm, sink)
    prompt = llm.prompts[2]
    kinds = [m["role"] for m in prompt]
    assert kinds[:3] == ["system", "user", "system"] and kinds[-1] == "user"
    assert kinds[3:5] == ["assistant", "tool"]
    assert "<ledger>" in prompt[2]["content"] and "<task>" in prompt[1]["content"]
    assert "Time zone: Europe/Oslo" in prompt[1]["content"]
    last = prompt[-1]["content"]
    assert "<page_content" in last and "elapsed" in last and "left" in last and "CE" in last
    assert llm.prompts[0][:2] == prompt[:2]  # the static head is byte-identical
    evicted = sink.of_type("memory.evicted")
    # before every model call: the three Worker calls and the Planner's verification
    assert [(e["step"], e["role"]) for e in evicted] == [
        (1, "worker"),
        (2, "worker"),
        (3, "worker"),
        (3, "planner"),
    ]
    assert set(evicted[0]["counts"]) >= {"screenshots", "failures", "archived"}


async def test_prompt_stays_flat_over_many_steps() -> None:
    llm = FakeLLM([scroll() for _ in range(30)] + [done()], BRAIN_SIDE)
    await run_agent(task(max_steps=40), FakeBrowser(PAGES), llm, RecordingSink())
    size = [len(json.dumps(p)) for p in llm.prompts]
    assert size[29] <= 1.15 * size[9]


async def test_an_action_written_as_text_is_executed_not_nudged() -> None:
    as_text = LLMReply('{"action": "click", "args": {"ref": "1:1"}}', (), 50, 5, "m", 0.0, "stop")
    browser = FakeBrowser(PAGES)
    outcome = await run_agent(
        task(), browser, FakeLLM([as_text, done()], BRAIN_SIDE), RecordingSink()
    )
    assert outcome.success and browser.current == LIST
    assert [a.name for a in browser.actions] == ["click"]


def test_dead_end_signature_uses_the_element_name_not_the_ref() -> None:
    page = '[4:7] link "Quick order" (new)\n[4:8] textbox "Email"'
    assert describe_action(Action("click", {"ref": "4:7"}), page) == (
        'click link "Quick order"',
        'click link "quick order"',
    )
    typed = describe_action(Action("type", {"ref": "4:8", "text": "pw", "secret": True}), page)
    assert typed[0] == 'type textbox "Email" (secret=True, text=***)'


async def test_one_checklist_item_is_updated_per_step() -> None:
    update = {"id": 1, "status": "completed"}
    steps = [scroll() for _ in range(4)] + [
        with_notes(scroll(), checklist=update),
        with_notes(scroll(), checklist={"id": 2, "status": "in_progress"}),
        done(),
    ]
    checklist = {"checklist": ["cart opened", "item bought"]}
    second = {"checklist_update": {"id": 2, "status": "failed"}, "done": True}
    llm = FakeLLM(steps, side(checklist, second))
    store = InMemoryMemoryStore()
    await run_agent(task(), FakeBrowser(PAGES), llm, RecordingSink(), memory=store)
    statuses = [(i["id"], i["status"]) for i in store.latest["checklist"]]
    # step 4 created it, step 5 the Worker completed item 1, step 6 item 2 in progress,
    # then the verification (step 7) marked item 2 failed: never two updates in one step
    assert statuses == [(1, "completed"), (2, "failed")]


def test_observation_message_carries_an_image_as_content_parts() -> None:
    from workers.agent.context.history import observation_message
    from workers.agent.protocols import Observation

    page = Observation(HOME, "Shop", '[1:1] link "List"', 1)
    plain = observation_message(page, 1, 5)
    assert isinstance(plain["content"], str) and plain["content"].startswith("Step 1 of 5.")
    parts = observation_message(page, 1, 5, image_jpeg=b"\xff\xd8jpeg")["content"]
    assert [p["type"] for p in parts] == ["text", "image_url"]
    assert parts[0]["text"] == plain["content"]
    assert parts[1]["image_url"]["url"].startswith("data:image/jpeg;base64,")


async def test_the_planner_cannot_spend_a_step_the_worker_already_updated() -> None:
    steps = [scroll() for _ in range(4)] + [
        with_notes(done(), checklist={"id": 1, "status": "completed"}),
    ]
    checklist = {"checklist": ["cart opened", "item bought"]}
    verify = {"checklist_update": {"id": 2, "status": "completed"}, "done": True}
    llm = FakeLLM(steps, side(checklist, verify))
    store = InMemoryMemoryStore()
    await run_agent(task(), FakeBrowser(PAGES), llm, RecordingSink(), memory=store)
    statuses = [(i["id"], i["status"]) for i in store.latest["checklist"]]
    assert statuses == [(1, "completed"), (2, "pending")]


async def test_creating_the_checklist_does_not_spend_the_steps_update() -> None:
    steps = [scroll() for _ in range(3)] + [
        with_notes(scroll(), checklist={"id": 1, "status": "in_progress"}),
        done(),
    ]
    first = {"checklist": ["a done", "b done"], "checklist_update": {"id": 2, "status": "failed"}}
    llm = FakeLLM(steps, side(first, {"done": True}))
    store = InMemoryMemoryStore()
    await run_agent(task(), FakeBrowser(PAGES), llm, RecordingSink(), memory=store)
    statuses = [(i["id"], i["status"]) for i in store.latest["checklist"]]
    # the verdict that creates the list also updates item 2: both apply, in that order, and
    # that update is the step's one (the Worker's update in the same step is dropped)
    assert statuses == [(1, "pending"), (2, "failed")]
    llm = FakeLLM(steps, side({"checklist": ["a done", "b done"]}, {"done": True}))
    store = InMemoryMemoryStore()
    await run_agent(task(), FakeBrowser(PAGES), llm, RecordingSink(), memory=store)
    statuses = [(i["id"], i["status"]) for i in store.latest["checklist"]]
    assert statuses == [(1, "in_progress"), (2, "pending")]  # creating alone spends nothing


async def test_the_ledger_row_is_written_only_when_it_changed() -> None:
    """A step persists the Ledger before each model call and after it; an unchanged row is
    not written again (issue 13, per-step overhead), a changed one always is."""
    llm = FakeLLM([scroll(), scroll(), done()], BRAIN_SIDE)
    store = InMemoryMemoryStore()
    await run_agent(task(), FakeBrowser(PAGES), llm, RecordingSink(), memory=store)
    rows = store.snapshots
    assert all(a != b for a, b in itertools.pairwise(rows)), rows
    assert [s["step"] for s in store.latest["recent"]] == [1, 2, 3]
    assert len(rows) < 2 * len(llm.prompts), (len(rows), len(llm.prompts))


async def test_an_early_review_is_not_followed_by_a_periodic_one_on_the_next_step() -> None:
    """Relay finding (issue 26, social-media-some #10, #12): the Planner reviewed at steps 3
    (two failed steps) and 4 (s mod 4) around a single scroll. The N steps of Algorithm 1
    line 10 count from the Planner's last call."""
    browser = FakeBrowser(PAGES)
    browser.fail["hover"] = ToolResult(success=False, reason="nothing", error="no_effect")
    hovers = [reply(("hover", {"ref": f"{v}:3"})) for v in (1, 2)]
    llm = FakeLLM([*hovers, *[scroll() for _ in range(5)], done()], BRAIN_SIDE)
    sink = RecordingSink()
    await run_agent(task(), browser, llm, sink)
    reviews = [(e["step"], e["trigger"]) for e in sink.of_type("plan.updated")]
    assert reviews == [(3, "failures"), (7, "periodic"), (8, "completion")]


async def test_the_planner_request_carries_the_task_once() -> None:
    """Relay finding (issue 26): the task text was in the session message and again as the
    Ledger's `goal:` line."""
    llm = FakeLLM([scroll(), scroll(), scroll(), done()], BRAIN_SIDE)
    await run_agent(task(), FakeBrowser(PAGES), llm, RecordingSink())
    planner_calls = [messages for role, messages, _ in llm.calls if role == "planner"]
    assert len(planner_calls) == 2
    for messages in planner_calls:
        assert message_text(messages).count("buy the item") == 1


async def test_the_planners_ledger_lists_the_checklist_and_the_steps_taken() -> None:
    """Relay finding (issue 26 #10-#12): the Planner's ledger is to show the checklist the
    Worker sent and the steps since, a bulk of clicks included."""
    first = with_notes(scroll(), checklist=["Open the list", "Buy the item"])
    bulk = reply(("bulk", {"actions": [{"tool": "hover", "args": {"ref": "3:3"}}] * 3}))
    llm = FakeLLM([first, scroll(), bulk, done()], BRAIN_SIDE)
    await run_agent(task(), FakeBrowser(PAGES), llm, RecordingSink())
    ledger = next(m for r, m, _ in llm.calls if r == "planner")[2]["content"]
    assert "checklist:\n- [ ] 1. Open the list\n- [ ] 2. Buy the item" in ledger
    assert "recent steps:\n- step 1 from http://shop.test/: scroll() -> ok" in ledger
    assert "- step 3: bulk[hover(ref=3:3); hover(ref=3:3); hover(ref=3:3)] -> ok" in ledger
    assert "page_content" not in ledger  # no dead ends, no fence
