"""Issue 34 "Scope": a batch of unrelated tasks on one host replays nothing and shows no
other task's facts or values; a route that only re-opens the start page is no route."""

from __future__ import annotations

import time
from typing import Any

from workers.adapters.site_learning import RunLearnings
from workers.agent.loop.loop import run_agent
from workers.agent.memory.site_memory import SiteMemory, render_site
from workers.agent.protocols import AgentTask
from workers.agent.replay.route_record import RouteRecorder
from workers.agent.testing import (
    BRAIN_SIDE,
    FakeBrowser,
    FakeLLM,
    InMemoryMemoryStore,
    InMemoryRouteStore,
    RecordingSink,
    message_text,
    reply,
)

HOST = "http://games.test/"
TASKS = {
    "choose-date": "Select 12/03/2016 as the date and hit submit",
    "book-flight": 'Book the cheapest one-way flight from "Oslo" to "Rome"',
    "click-button": 'Click on the "Okay" button',
}
PAGES: dict[str, Any] = {
    f"{HOST}{name}.html": [("button", "Submit", None), ("textbox", "Value", None)] for name in TASKS
}
PAGES[f"{HOST}confirm.html?part=FA-1042&qty=3"] = [("heading", "Sent", None)]


async def _one(
    name: str, memory: InMemoryMemoryStore, routes: InMemoryRouteStore, script: list[Any]
) -> FakeLLM:
    url, instruction = f"{HOST}{name}.html", TASKS[name]
    task = AgentTask(instruction, url, 5, time.monotonic() + 60, reuse_routes=True)
    recorder, learn = RouteRecorder(instruction, url), RunLearnings(instruction, name)
    browser = recorder.watch(learn.watch(FakeBrowser(PAGES, text_extra="\nDelivery 2 days")))
    sink = recorder.watch_sink(learn.watch_sink(RecordingSink()))
    llm = FakeLLM(script, side=BRAIN_SIDE)
    outcome = await run_agent(task, browser, llm, sink, memory=memory, routes=routes)
    await recorder.commit(routes, outcome)
    await learn.commit(memory, outcome, url)
    return llm


def _memory_lines(llm: FakeLLM) -> list[str]:
    body = "\n".join(message_text(m) for _, m, _ in llm.calls)
    lines = (ln.strip().removeprefix("- ") for ln in body.splitlines())
    return [ln for ln in lines if ln.startswith(("fact ", "URL patterns"))]


async def test_a_batch_of_unrelated_tasks_on_one_host_replays_and_shows_nothing_of_another() -> (
    None
):
    memory, routes = InMemoryMemoryStore(), InMemoryRouteStore()
    fact = ("record_fact", {"key": "delivery", "value": "2 days", "confidence": 1.0})
    first = [
        reply(("navigate", {"url": f"{HOST}choose-date.html"})),  # a reload: no route
        reply(("navigate", {"url": f"{HOST}confirm.html?part=FA-1042&qty=3"})),
        reply(fact),
        reply(("done", {"answer": "done", "success": True})),
    ]
    await _one("choose-date", memory, routes, first)
    (stored,) = memory.learnings["games.test"]["facts"]
    assert stored["key"] == "delivery"
    lines = 0
    for name in ("book-flight", "click-button"):
        llm = await _one(name, memory, routes, [reply(("done", {"answer": "x", "success": True}))])
        shown = _memory_lines(llm)
        assert not [ln for ln in shown if ln.startswith("fact ")], shown
        assert "FA-1042" not in "\n".join(message_text(m) for _, m, _ in llm.calls)
        lines += len(shown)
    assert lines <= 2  # at most the URL pattern line, with no value of the other task
    assert all(len(r.steps) > 0 for r in routes.routes.values())
    assert not [r for r in routes.routes.values() if r.instruction != TASKS["choose-date"]]


async def test_a_route_that_only_reopens_the_start_page_is_no_route() -> None:
    routes, memory = InMemoryRouteStore(), InMemoryMemoryStore()
    reload = [
        reply(("navigate", {"url": f"{HOST}click-button.html"})),
        reply(("done", {"answer": "clicked", "success": True})),
    ]
    await _one("click-button", memory, routes, reload)
    assert routes.routes == {}


def test_facts_are_shown_to_their_intent_or_their_page_not_to_the_host() -> None:
    rows = [
        {"key": "max_price", "value": "276", "url": f"{HOST}book-flight.html", "intent": "x"},
        {"key": "fee", "value": "2%", "url": f"{HOST}pay/checkout", "intent": "y"},
        {"key": "open", "value": "9-5", "url": HOST, "intent": "select {} as the date"},
    ]
    site = SiteMemory.of("games.test", {"facts": rows})
    assert site.scoped("Click on it", f"{HOST}click-button.html").facts == ()
    assert [f["key"] for f in site.scoped("Pay", f"{HOST}pay/checkout/2").facts] == ["fee"]
    assert [f["key"] for f in site.scoped("Select 1/2/2020 as the date", HOST).facts] == ["open"]


def test_a_fixed_url_value_one_run_saw_is_no_constant() -> None:
    rows = [{"pattern": "/confirm.html?part=FA-1042&qty=*", "runs": ["t1"]}]
    assert "FA-1042" not in render_site(SiteMemory.of("games.test", {"url_templates": rows}))
    rows = [{"pattern": "/list?sort=price&q=*", "runs": ["t1", "t2"]}]
    assert "sort=price" in render_site(SiteMemory.of("games.test", {"url_templates": rows}))
