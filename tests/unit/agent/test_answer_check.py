"""The answer check: claims of a final answer looked up in what the run saw (issue 10)."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from workers.agent.errors import LLMUnavailable, TaskCancelled
from workers.agent.judge import answer_check
from workers.agent.judge.claims import SeenText, claims_of
from workers.agent.judge.grounding import READING, SeeingBrowser, SeeingFetcher
from workers.agent.loop.loop import run_worker_only
from workers.agent.protocols import Action, AgentOutcome, AgentTask, FetchedPage, ToolResult
from workers.agent.testing import FakeBrowser, FakeLLM, RecordingSink, reply

SHOP = "http://shop.test/"
PAGE = (
    "Order Q-4821 shipped 2026-03-14\n"
    "Widget  qty 2  $1,299.00\nGadget  qty 1  $20.50\nCable  qty 3  $5.25\n"
    'Contact sales@shop.test or see https://shop.test/terms "No returns after 30 days"'
)


def seen(text: str = PAGE) -> SeenText:
    store = SeenText()
    store.add(text)
    return store


def outcome(answer: str, data: object = None) -> AgentOutcome:
    return AgentOutcome(answer, True, "succeeded", 2, 2, 10, 10, data=data)


def kinds(text: str) -> list[tuple[str, str]]:
    return [(c.kind, c.key) for c in claims_of(text)]


def test_claims_are_the_checkable_parts_of_an_answer() -> None:
    found = kinds(
        "Order #Q-4821 costs $1,299 (see https://shop.test/terms/, mail Sales@Shop.test); "
        'it says "No  returns after 30 days" on 2026-03-14, 3 items, 12.5 kg total 1.5'
    )
    assert ("code", "q-4821") in found and ("money", "1299") in found
    assert ("url", "shop.test/terms") in found and ("email", "sales@shop.test") in found
    assert ("quote", "no returns after 30 days") in found and ("date", "2026-03-14") in found
    assert ("number", "3") in found and ("number", "1.5") in found
    assert not any(key in ("4821", "30", "12.5kg") for _, key in found)  # inside other claims


def test_values_on_the_page_are_seen_in_any_spelling() -> None:
    verdict = seen().check(
        claims_of('q-4821 costs 1299 USD; "no returns AFTER 30 days"; SALES@shop.test')
    )
    assert not verdict.unseen and len(verdict.seen) == 4


def test_a_code_is_seen_with_other_separators() -> None:
    store = seen("Dell XPS 13 and the SKU AB12CD")
    assert not store.check(claims_of("the XPS-13 (sku ab-12-cd)")).unseen
    assert store.check(claims_of("the XPS-15")).unseen
    assert seen("Buy a 1 year plan").check(claims_of("plan A-1")).unseen  # short: as written


def test_a_made_up_code_is_unseen_and_a_longer_code_is_not_a_match() -> None:
    verdict = seen().check(claims_of("Your order is Q-9917, and Q-48 too"))
    assert [c.text for c in verdict.unseen] == ["Q-9917", "Q-48"]


def test_totals_differences_and_counts_are_derived_not_flagged() -> None:
    verdict = seen().check(claims_of("Total $1,324.75; difference 1278.5; 4 lines; 17"))
    assert [c.text for c in verdict.derived] == ["$1,324.75", "1278.5", "4", "17"]
    assert not verdict.unseen
    assert seen().check(claims_of("Average $441.58")).unseen  # not derived: flagged


def test_a_date_written_another_way_is_seen() -> None:
    store = seen("Delivered on March 14, 2026")
    assert not store.check(claims_of("delivered 2026-03-14")).unseen
    assert store.check(claims_of("delivered 2026-04-14")).unseen


def test_what_the_run_keeps_is_bounded(monkeypatch) -> None:
    from workers.agent.judge import claims

    monkeypatch.setattr(claims, "MAX_TEXT_CHARS", 100)
    store = SeenText()
    store.add("a" * 90)
    store.add("late page shows code ZX-77 and 88.5")  # over the text cap: words and numbers
    store.add("a" * 90)  # a page seen again is not kept twice
    assert store.chars == 90
    assert not store.check(claims_of("ZX-77 at 88.5")).unseen


async def test_grounded_answer_is_verified_without_a_model_call() -> None:
    llm = FakeLLM([])
    settled = await answer_check.settle(outcome("Order Q-4821: $1,299.00"), seen(), llm, "find it")
    assert settled.grounding == {
        "verdict": "verified",
        "checked": 2,
        "unseen": [],
        "derived": [],
        "corrected": False,
    }
    assert llm.calls == []


async def test_unseen_claim_gets_one_feedback_round_then_is_flagged() -> None:
    llm = FakeLLM([reply(content="The order is Q-9917.")])
    settled = await answer_check.settle(outcome("The order is Q-9917."), seen(), llm, "find it")
    assert settled.success and settled.status == "succeeded"
    assert settled.grounding is not None and settled.grounding["verdict"] == "unverified"
    assert settled.grounding["unseen"] == ["Q-9917"]
    ((_role, messages, _),) = llm.calls
    asked = messages[-1]["content"]
    assert answer_check.MARK in asked and "- Q-9917" in asked
    assert "order q-4821 shipped" in asked  # the page line that looks closest, as evidence


async def test_feedback_round_can_correct_the_answer() -> None:
    llm = FakeLLM([reply(content="The order is Q-4821.")])
    settled = await answer_check.settle(outcome("The order is Q-4812."), seen(), llm, "find it")
    assert settled.answer == "The order is Q-4821."
    assert settled.grounding is not None
    assert (settled.grounding["verdict"], settled.grounding["corrected"]) == ("verified", True)
    assert settled.grounding["answer_before_check"] == "The order is Q-4812."


async def test_structured_data_is_checked_and_a_correction_must_fit_the_schema() -> None:
    schema = {"type": "object", "properties": {"price": {"type": "number"}}, "required": ["price"]}
    llm = FakeLLM([reply(content="a price of 1299")])  # not JSON: the answer is kept
    settled = await answer_check.settle(
        outcome('{"price": 999}', {"price": 999}), seen(), llm, "price?", schema
    )
    assert settled.data == {"price": 999}
    assert settled.grounding is not None and settled.grounding["unseen"] == ["999"]
    fixed = await answer_check.settle(
        outcome('{"price": 999}', {"price": 999}),
        seen(),
        FakeLLM([reply(content='{"price": 1299.0}')]),
        "price?",
        schema,
    )
    assert fixed.data == {"price": 1299.0} and fixed.grounding["verdict"] == "verified"


async def test_failed_runs_and_answers_without_claims() -> None:
    failed = replace(outcome("Q-9917"), success=False, status="failed")
    assert await answer_check.settle(failed, seen(), FakeLLM([]), "x") is failed
    plain = await answer_check.settle(outcome("It worked."), seen(), FakeLLM([]), "x")
    assert plain.grounding is not None and plain.grounding["verdict"] == "no_claims"


async def test_the_browser_notes_observations_and_reading_tools_only() -> None:
    browser = FakeBrowser({SHOP: [("link", "Order Q-4821", None)]})
    browser.fail["read_text"] = ToolResult(True, "text: Invoice INV-77", data={"text": "€12"})
    browser.fail["record_fact"] = ToolResult(True, "noted ZZ-1", data={"fact": {"k": "ZZ-2"}})
    store = SeenText()
    watched = SeeingBrowser(browser, store)
    sink = RecordingSink()
    script = [
        reply(("read_text", {})),
        reply(("record_fact", {"key": "k", "value": "ZZ-2"})),
        reply(("done", {"answer": "ok", "success": True})),
    ]
    task = AgentTask("read", SHOP, 5, time.monotonic() + 60)
    await run_worker_only(task, watched, FakeLLM(script), sink)
    verdict = store.check(claims_of("Q-4821 INV-77 €12 ZZ-1 ZZ-2"))
    assert [c.text for c in verdict.unseen] == ["ZZ-1", "ZZ-2"]
    assert watched.actions == [
        Action("read_text", {}),
        Action("record_fact", {"key": "k", "value": "ZZ-2"}),
    ]


async def test_the_search_route_pages_are_noted() -> None:
    class Pages:
        async def fetch(self, url: str) -> FetchedPage:
            return FetchedPage(url, 200, "Shop", "Ticket T-100 open")

    store = SeenText()
    await SeeingFetcher(Pages(), store).fetch(SHOP)
    assert not store.check(claims_of("T-100")).unseen


@pytest.mark.parametrize(
    ("tool", "noted"),
    [(name, True) for name in sorted(READING)]
    + [(name, False) for name in ("type", "fill_form", "record_fact", "evaluate_script")],
)
async def test_which_tool_results_are_evidence(tool: str, noted: bool) -> None:
    browser = FakeBrowser({SHOP: []})
    browser.fail[tool] = ToolResult(True, "result KX-5", data={"text": "file says KX-6"})
    store = SeenText()
    await SeeingBrowser(browser, store).execute(Action(tool, {}))
    assert (not store.check(claims_of("KX-5 KX-6")).unseen) is noted


async def test_a_failed_feedback_call_keeps_the_answer_unverified() -> None:
    llm = FakeLLM([LLMUnavailable("model down")])
    settled = await answer_check.settle(outcome("The order is Q-9917."), seen(), llm, "find it")
    assert (settled.success, settled.answer) == (True, "The order is Q-9917.")
    assert settled.grounding is not None and settled.grounding["unseen"] == ["Q-9917"]
    with pytest.raises(TaskCancelled):
        await answer_check.settle(
            outcome("Q-9917"), seen(), FakeLLM([TaskCancelled("stop")]), "find it"
        )


async def test_reads_inside_a_bulk_are_evidence_and_its_echoes_are_not() -> None:
    """Issue 31 item 4: a password read by read_text inside a bulk was flagged "not found on
    any page the run saw"; what a bulk typed stays the model's own words."""
    browser = FakeBrowser({SHOP: []})
    reads = "2. read_text 1:4: Your password is Kx7-Q2vL"
    steps = "1. typed 'ZZ-9' into 1:2\n2. read 1 text"
    browser.fail["bulk"] = ToolResult(True, "2 actions done", data={"steps": steps, "reads": reads})
    store = SeenText()
    await SeeingBrowser(browser, store).execute(Action("bulk", {"actions": []}))
    assert [c.text for c in store.check(claims_of("Kx7-Q2vL ZZ-9")).unseen] == ["ZZ-9"]


def test_the_planner_sees_the_reads_of_a_bulk_as_evidence() -> None:
    from workers.agent.context.history import ExecutedCall
    from workers.agent.judge.evidence import EvidenceLog
    from workers.agent.protocols import ToolCall

    data = {"steps": "1. typed 'ZZ-9'", "reads": "2. read_text 1:4: code Kx7-Q2vL"}
    bulk = ExecutedCall(
        ToolCall("c1", "bulk", {}), Action("bulk", {}), ToolResult(True, "2 done", data=data)
    )
    log = EvidenceLog()
    log.add(3, [bulk])
    assert "Kx7-Q2vL" in log.render() and "ZZ-9" not in log.render()


def test_a_csv_row_gives_its_numbers_not_thousands_made_of_two_cells() -> None:
    """The challenge relay run: "South,950,52250" was read as 950,522 and 50, so an answer of
    "52,250 EUR" from the CSV was sent back as not found (one wasted call)."""
    seen = SeenText()
    seen.add("region,units,revenue_eur\nNorth,1200,48000\nSouth,950,52250\nEast,1430,50050")
    verdict = seen.check(claims_of("South had the highest revenue: 52,250 EUR."))
    assert not verdict.unseen, verdict
    still = SeenText()
    still.add("Total: 1,299.00 and 12,345,678 units")  # real thousands separators still read
    assert not still.check(claims_of("$1299 for 12345678 units")).unseen
