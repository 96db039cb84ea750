"""Proven routes (issue 21): the matching rule, what a recorded route keeps (task values as
slots, targets by role + name + place, no secrets), replay without model calls, the fallback
to the model at the first mismatch and the rewrite of the route after it."""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from typing import Any

from workers.agent.loop.loop import run_agent
from workers.agent.memory.route_values import Slots, intent_of, match, render, tokens
from workers.agent.memory.routes import find, target_of, url_matches, url_pattern
from workers.agent.protocols import AgentOutcome, AgentTask, LLMReply
from workers.agent.replay.route_record import RouteRecorder
from workers.agent.testing import (
    BRAIN_SIDE,
    FakeBrowser,
    FakeLLM,
    InMemoryRouteStore,
    RecordingSink,
    message_text,
    reply,
)

HOME = "http://shop.test/"
ONE = 'filter by colour red, open the "Aurora" kettle and quote size 1.7 to Berlin'
TWO = 'filter by colour blue, open the "Nimbus" kettle and quote size 1.2 to Paris'


def pages(rename: bool = False) -> dict[str, list[tuple[str, str, str | None]]]:
    blue = "Blue kettles (new)" if rename else "Blue kettles"
    return {
        HOME: [("link", "Red kettles", f"{HOME}search?color=red"), ("link", blue, None)],
        f"{HOME}search?color=red": [("link", "Aurora Kettle", f"{HOME}product/17")],
        f"{HOME}search?color=blue": [("link", "Nimbus Kettle", f"{HOME}product/21")],
        f"{HOME}product/17": [
            ("combobox", "Size", None),
            ("textbox", "City", None),
            ("heading", "Total 56.50 EUR", None),
        ],
        f"{HOME}product/21": [
            ("combobox", "Size", None),
            ("textbox", "City", None),
            ("heading", "Total 45.00 EUR", None),
        ],
    }


class BlueLinks(FakeBrowser):
    """FakeBrowser whose unnamed-target link "Blue kettles" still leads to the blue list."""

    async def execute(self, action):  # type: ignore[no-untyped-def]
        result = await super().execute(action)
        if action.name == "click" and result.success and not result.page_changed:
            _, index = (int(x) for x in str(action.args["ref"]).split(":"))
            name = self.pages[self.current][index - 1][1]
            if name.startswith("Blue kettles"):
                self.current = f"{HOME}search?color=blue"
                return type(result)(success=True, page_changed=True)
        return result


def ref(messages: Sequence[Mapping[str, Any]], name: str) -> str:
    found = re.findall(rf'\[(\d+:\d+)\] \w+ "{re.escape(name)}"', message_text(messages))
    assert found, name
    return found[-1]


def click(name: str):  # type: ignore[no-untyped-def]
    return lambda m: reply(("click", {"ref": ref(m, name)}))


def act(tool: str, name: str, **args: Any):  # type: ignore[no-untyped-def]
    return lambda m: reply((tool, {"ref": ref(m, name), **args}))


def done(answer: str) -> LLMReply:
    return reply(("done", {"answer": answer, "success": True}))


def run_one_script(color: str = "Red", name: str = "Aurora", size: str = "1.7") -> list[Any]:
    return [
        click(f"{color} kettles"),
        click(f"{name} Kettle"),
        act("select_option", "Size", values=[f"{size} L"]),
        act("type", "City", text="Berlin"),
        done("56.50 EUR"),
    ]


async def _run(
    instruction: str,
    script: list[Any],
    store: InMemoryRouteStore,
    *,
    rename: bool = False,
    reuse: bool = True,
    outcome_override: AgentOutcome | None = None,
) -> tuple[AgentOutcome, FakeLLM, RecordingSink]:
    task = AgentTask(instruction, HOME, 12, time.monotonic() + 60, reuse_routes=reuse)
    recorder = RouteRecorder(instruction, HOME)
    llm, sink = FakeLLM(script, side=BRAIN_SIDE), RecordingSink()
    browser = recorder.watch(BlueLinks(pages(rename)))
    outcome = await run_agent(task, browser, llm, recorder.watch_sink(sink), routes=store)
    await recorder.commit(store, outcome_override or outcome)
    return outcome, llm, sink


def test_the_matching_rule_values_are_the_slots_the_trace_used() -> None:
    slots = Slots.of(ONE)
    used: set[int] = set()
    assert slots.template("Aurora Kettle", used) == "{6} {7:T}"
    assert slots.template("1.7 L", used) == "{11} L"
    assert slots.template("Red kettles", used) == "{3:T} kettles"  # "kettles" is not "kettle"
    assert match(ONE, sorted(used), TWO) is None  # Berlin -> Paris: a value the trace never used
    assert slots.template("Berlin", used) == "{13}"
    values = match(ONE, sorted(used), TWO)
    assert values is not None
    rendered = render("{3:T} kettles / {6} {7:T} / {11} L", values)
    assert rendered == "Blue kettles / Nimbus Kettle / 1.2 L"
    # a word that is not a slot must be the same; so must the number of tokens
    assert match(ONE, sorted(used), TWO.replace("quote", "buy")) is None
    assert match(ONE, sorted(used), TWO + " today") is None
    assert intent_of(ONE, used) == "filter by colour {} open the {} {} and quote size {} to {}"


def test_targets_are_found_by_role_name_and_place_not_ref() -> None:
    before = '== main > form "Filters" ==\n[3:4] button "Apply"\n== footer ==\n[3:9] button "Apply"'
    target = target_of(before, "3:4")
    assert target is not None and (target.place, target.nth) == ('main > form "Filters"', 0)
    after = '== footer ==\n[7:2] button "Apply"\n== main > form "Filters" ==\n[7:5] button "Apply"'
    element = find(after, target)
    assert element is not None and element.ref == "7:5"
    assert find('[8:1] button "Show results"', target) is None


def test_url_patterns_keep_task_values_and_wildcard_ids() -> None:
    slots, values = Slots.of(ONE), [t.text for t in tokens(TWO)]
    assert (
        url_pattern("http://shop.test/search?color=red", slots, {3}) == "shop.test/search?color={3}"
    )
    assert url_matches("shop.test/search?color={3}", "http://shop.test/search?color=blue", values)
    assert not url_matches(
        "shop.test/search?color={3}", "http://shop.test/search?color=red", values
    )
    pattern = url_pattern("http://shop.test/product/17?ref=abc", slots, {3})
    assert pattern == "shop.test/product/*?ref=*"


async def test_run_two_replays_the_route_with_its_own_values_and_one_model_call() -> None:
    store = InMemoryRouteStore()
    first, llm_one, _ = await _run(ONE, run_one_script(), store)
    assert first.success and len(llm_one.prompts) == 5
    (route,) = store.routes.values()
    assert [s.action for s in route.steps] == ["click", "click", "select_option", "type"]
    assert route.steps[1].target is not None and route.steps[1].target.name == "{6} {7:T}"
    assert route.steps[2].args == {"values": ["{11} L"]}
    assert route.steps[3].args == {"text": "{13}"}  # Berlin came from the task
    assert route.steps[1].url == "shop.test/product/*"

    second, llm_two, sink = await _run(TWO, [done("45.00 EUR")], store)
    assert second.success and second.answer == "45.00 EUR"
    assert len(llm_two.prompts) == 1  # the route replayed, the model only answered
    replayed = [e for e in sink.of_type("action.executed") if e.get("replayed")]
    assert [e["action"] for e in replayed] == ["click", "click", "select_option", "type"]
    assert replayed[2]["args"]["values"] == ["1.2 L"] and replayed[3]["args"]["text"] == "Paris"
    (event,) = sink.of_type("route.replayed")
    assert event["replayed_steps"] == [1, 2, 3, 4] and event["model_steps"] == [5]
    assert event["fell_back_at"] is None
    prompt = message_text(llm_two.prompts[0])
    assert "replayed from a proven route" in prompt and "Aurora" not in prompt
    assert next(iter(store.routes.values())).replays == 1


def planner_calls(llm: FakeLLM) -> list[str]:
    return [message_text(m) for role, m, _ in llm.calls if role == "planner"]


async def test_a_verified_replay_and_a_seen_answer_need_no_planner_call() -> None:
    """Relay run (issue 21): after a full replay the Worker was still asked for a first-turn
    checklist, and the Planner's verification was a second call although the route had
    proven every step and the answer was on the page."""
    store = InMemoryRouteStore()
    await _run(ONE, run_one_script(), store)
    second, llm, sink = await _run(TWO, [done("45.00 EUR")], store)
    assert second.success and second.answer == "45.00 EUR"
    assert '"checklist": [' not in message_text(llm.prompts[0])  # not a first turn any more
    assert planner_calls(llm) == []  # one model call in all
    (verdict,) = [e for e in sink.of_type("plan.updated") if e.get("trigger") == "completion"]
    assert verdict["done"] and verdict["verified_by"] == "route_replay+answer_check"


async def test_a_claim_no_page_showed_after_a_replay_goes_to_the_planner_with_every_step() -> None:
    """Relay run (issue 21): the Planner saw only the last three replayed steps, not the
    filter (the task's main value)."""
    store = InMemoryRouteStore()
    await _run(ONE, run_one_script(), store)
    _, llm, sink = await _run(TWO, [done("99.00 EUR")], store)
    (review,) = planner_calls(llm)
    assert not [e for e in sink.of_type("plan.updated") if e.get("verified_by")]
    replayed = review.split("route_replayed:", 1)[1].split("\n", 1)[0]
    assert "step 1 click(ref=" in replayed and "step 3 select_option(" in replayed
    assert "1.2 L" in replayed and "text=Paris" in replayed  # the task's values, each step


async def test_the_worker_after_a_replay_sees_every_replayed_step_with_its_values() -> None:
    """Relay run (issue 21 #8, #21): the Worker's Ledger showed only the last three replayed
    steps, not the filter set earlier; it sees the route line the Planner's checkpoint has,
    and the replayed steps before the last are not listed a second time."""
    store = InMemoryRouteStore()
    await _run(ONE, run_one_script(), store)
    _, llm, _ = await _run(TWO, [done("45.00 EUR")], store)
    ledger = next(m["content"] for m in llm.prompts[0] if "<ledger>" in str(m["content"]))
    route = ledger.split("proven route: ", 1)[1].split("\n", 1)[0]
    assert route.startswith("replayed 4 of 4 steps of a proven route of this site: step 1 click(")
    assert "step 3 select_option(" in route and "1.2 L" in route and "text=Paris" in route
    assert "recent steps:\n- step 4 from" in ledger and "- step 3" not in ledger


async def test_a_renamed_element_falls_back_to_the_model_and_the_route_is_rewritten() -> None:
    store = InMemoryRouteStore()
    await _run(ONE, run_one_script(), store)
    script = [click("Blue kettles (new)"), *run_one_script("Blue", "Nimbus", "1.2")[1:]]
    script[3] = act("type", "City", text="Paris")
    outcome, llm, sink = await _run(TWO, script, store, rename=True)
    assert outcome.success and len(llm.prompts) == 5
    assert len(planner_calls(llm)) >= 1  # a fallback's claim is verified by the Planner
    (event,) = sink.of_type("route.replayed")
    assert event["fell_back_at"] == 0 and event["replayed_steps"] == []
    assert event["model_steps"] == [1, 2, 3, 4, 5]
    assert "Blue kettles" in event["reason"]
    (route,) = store.routes.values()
    assert route.version == 2 and route.steps[0].target is not None
    assert route.steps[0].target.name == "{3:T} kettles (new)"

    # the rewritten route replays on the renamed site
    third, llm_three, _ = await _run(TWO, [done("45.00 EUR")], store, rename=True)
    assert third.success and len(llm_three.prompts) == 1


async def test_opt_out_secrets_and_failed_checks() -> None:
    store = InMemoryRouteStore()
    failed = AgentOutcome("56.50 EUR", False, "failed", 5, 5, 0, 0, error="output_invalid")
    await _run(ONE, run_one_script(), store, outcome_override=failed)
    assert store.routes == {}  # the service failed the answer: no route

    secret = run_one_script()
    secret[3] = act("type", "City", text="hunter2", secret=True)
    await _run(ONE, secret, store)
    (route,) = store.routes.values()
    assert "text" not in route.steps[3].args and not route.steps[3].replayable
    assert "hunter2" not in repr(route)

    _, llm, sink = await _run(TWO, run_one_script("Blue", "Nimbus", "1.2"), store, reuse=False)
    assert len(llm.prompts) == 5 and not sink.of_type("route.replayed")


class Sections(FakeBrowser):
    """FakeBrowser whose pages have landmark (`==`) and heading (`#`) lines."""

    async def observe(self, mode: str = "compact"):  # type: ignore[no-untyped-def]
        seen = await super().observe(mode)
        lines = []
        for line in seen.text.splitlines():
            m = re.match(r'\[\d+:\d+\] (==|#) "(.*)"$', line)
            lines.append(m.group(2) if m else line)
        return type(seen)(seen.url, seen.title, "\n".join(lines), seen.version, seen.tokens)


NEWS = "subscribe to the newsletter"


def account_pages(replaced: bool) -> dict[str, list[tuple[str, str, str | None]]]:
    section = (
        [("==", '== main > region "Close account" ==', None), ("#", "## Close account", None)]
        if replaced
        else [("==", '== main > region "Newsletter" ==', None), ("#", "## Newsletter", None)]
    )
    return {
        HOME: [*section, ("button", "Continue", f"{HOME}closed" if replaced else f"{HOME}ok")],
        f"{HOME}ok": [("heading", "Subscribed", None)],
        f"{HOME}closed": [("heading", "Account closed", None)],
    }


async def _run_sections(script: list[Any], store: InMemoryRouteStore, replaced: bool) -> Any:
    task = AgentTask(NEWS, HOME, 6, time.monotonic() + 60, reuse_routes=True)
    recorder = RouteRecorder(NEWS, HOME)
    llm, sink = FakeLLM(script, side=BRAIN_SIDE), RecordingSink()
    browser = Sections(account_pages(replaced))
    outcome = await run_agent(
        task, recorder.watch(browser), llm, recorder.watch_sink(sink), routes=store
    )
    await recorder.commit(store, outcome)
    return outcome, llm, sink, browser


async def test_a_same_named_button_in_another_section_is_never_replayed() -> None:
    """Issue 32 item 2: the newsletter section was replaced by a "Close account" section
    with its own "Continue": the replay clicks nothing and hands over to the model."""
    store = InMemoryRouteStore()
    await _run_sections([click("Continue"), done("Subscribed")], store, replaced=False)
    (route,) = store.routes.values()
    assert route.steps[0].target is not None
    assert route.steps[0].target.place == 'main > region "Newsletter"'
    assert route.steps[0].target.heading == "Newsletter"
    quit = done("the newsletter section is gone")
    _, llm, sink, browser = await _run_sections([quit], store, replaced=True)
    assert not [a for a in browser.actions if a.name == "click"]  # no click, by nobody
    assert browser.current == HOME
    (event,) = sink.of_type("route.replayed")
    assert event["fell_back_at"] == 0 and event["replayed_steps"] == []
    assert len(llm.prompts) >= 1  # the model decided
    # the same page with the section still there replays the click
    _, _, _, again = await _run_sections([done("Subscribed")], store, replaced=False)
    assert again.current == f"{HOME}ok"


def test_find_wants_the_heading_and_the_row_that_carries_the_value() -> None:
    page = (
        '== main ==\n## Newsletter\n[1:1] button "Continue"\n## Close account\n'
        '[1:2] button "Continue"\n'
        'Hex bolt M8 | 0.40 | [1:3] link "Details"\nShaft seal | 2.10 | [1:4] link "Details"'
    )
    from workers.agent.memory.routes import Target

    assert find(page, Target("button", "Continue", "main", 0, "Close account")).ref == "1:2"  # type: ignore[union-attr]
    assert find(page, Target("button", "Continue", "main", 0, "Account")) is None
    assert find(page, Target("button", "Continue", "", 0, "Newsletter")) is None  # place
    seal = Target("link", "Details", "main", 0, "Close account", ("shaft seal",))
    assert find(page, seal).ref == "1:4"  # type: ignore[union-attr]
    assert find(page, Target("link", "Details", "main", 0, "Close account", ("Nut",))) is None


def test_slots_take_values_of_another_token_count() -> None:
    """Issue 34: "Hex bolt" (2 tokens) and "Shaft seal ring" fill the same slots."""
    one = "open the part Hex bolt and read its price"
    slots = Slots.of(one)
    used: set[int] = set()
    assert slots.template("Hex bolt", used) == "{3} {4}"
    values = match(one, sorted(used), "open the part Shaft seal ring and read its price")
    assert values is not None and render("{3} {4}", values) == "Shaft seal ring"
    short = match(one, sorted(used), "open the part Nut and read its price")
    assert short is not None and render("{3} {4}", short).strip() == "Nut"
    assert match(one, sorted(used), "open the part Nut and read its weight") is None
    assert match(one, sorted(used), "open the part and read its price") is None


def test_a_details_link_is_kept_by_the_task_value_its_row_names() -> None:
    """Issue 34: "the Details link in the row that names {part}" (the link carries no value)."""
    from workers.agent.replay.route_steps import row_values

    one = "open the part Hex bolt and read its price"
    page = 'Hex bolt | 0.40 | [1:3] link "Details"\nShaft seal ring | 2.10 | [1:4] link "Details"'
    target = target_of(page, "1:3")
    assert target is not None and target.nth == 0 and target.row == (page.splitlines()[0],)
    slots, used = Slots.of(one), set[int]()
    slots.template(target.row[0], used, slots.named)
    assert sorted(used) == [3, 4]  # a capitalised name of two words; not "price"
    row = row_values(target.row, slots, {3, 4})
    assert row == ("{3}", "{4}")
    values = match(one, [3, 4], "open the part Shaft seal ring and read its price")
    assert values is not None
    wanted = type(target)("link", "Details", "", 0, "", tuple(render(v, values) for v in row))
    assert find(page, wanted).ref == "1:4"  # type: ignore[union-attr]


async def test_a_replayed_step_waits_for_the_same_approval_as_the_models() -> None:
    """Issue 32 item 2: replayed steps go through the supervised browser's approval rules."""
    from workers.agent.people.supervised import SupervisedBrowser, Supervision
    from workers.agent.testing import InspectableBrowser, ScriptedGate

    instruction = "go to my settings and press the remove button"
    pages = {HOME: [("button", "Remove account", f"{HOME}gone")], f"{HOME}gone": []}
    store = InMemoryRouteStore()
    for answers, script in (
        (["approved"], [click("Remove account"), done("ok")]),
        (["denied"], [done("no")]),
    ):
        gate = ScriptedGate(answers=list(answers))
        browser = InspectableBrowser(pages)
        task = AgentTask(instruction, HOME, 6, time.monotonic() + 60, reuse_routes=True)
        recorder = RouteRecorder(instruction, HOME)
        supervised = SupervisedBrowser(recorder.watch(browser), gate, Supervision())
        llm, sink = FakeLLM(script, side=BRAIN_SIDE), RecordingSink()
        outcome = await run_agent(task, supervised, llm, recorder.watch_sink(sink), routes=store)
        await recorder.commit(store, outcome)
        assert len(gate.requests) == 1  # asked before the click, replayed or not
    assert browser.current == HOME  # the denied replay clicked nothing
    (event,) = sink.of_type("route.replayed")
    assert event["replayed_steps"] == [] and event["fell_back_at"] == 0
