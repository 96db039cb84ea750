"""What a user sees of a site's memory (issue 34): `GET /v1/domains/{d}` lists each proven
route with its intent, slots and how often it was replayed, fell back to the model and
succeeded, and each fact with the run and page it came from and the runs it was shown to.
The routes and facts are written by the real recorders (RouteRecorder over DbRouteStore,
RunLearnings over DbMemoryStore) on the test doubles' kettle shop."""

from __future__ import annotations

import time
from typing import Any

from app.contracts import EventType
from tests.integration.api.test_auth_keys import L, bearer, keyed_app, new_key
from tests.unit.agent.test_routes import HOME, ONE, TWO, BlueLinks, act, click, done, pages
from tests.unit.agent.test_routes import run_one_script as kettle_script
from workers.adapters.memory_report import memory_used
from workers.adapters.memory_store import DbMemoryStore
from workers.adapters.route_store import DbRouteStore
from workers.adapters.site_learning import RunLearnings
from workers.agent.loop.loop import run_agent
from workers.agent.protocols import AgentOutcome, AgentTask
from workers.agent.replay.route_record import RouteRecorder
from workers.agent.testing import BRAIN_SIDE, FakeLLM, RecordingSink

FACT_PAGE = f"{HOME}search?color=red"


async def _run(app: Any, task_id: str, text: str, script: list[Any], **kw: Any) -> Any:
    store = DbRouteStore(app.state.session_factory, tenant_id="acme", task_id=task_id)
    recorder = RouteRecorder(text, HOME)
    llm, sink = FakeLLM(script, side=BRAIN_SIDE), RecordingSink()
    task = AgentTask(text, HOME, 12, time.monotonic() + 60, reuse_routes=True)
    browser = recorder.watch(BlueLinks(pages(**kw)))
    outcome = await run_agent(task, browser, llm, recorder.watch_sink(sink), routes=store)
    written = await recorder.commit(store, outcome)
    return outcome, recorder, written


async def _learn(app: Any, task_id: str, fact: bool) -> RunLearnings:
    memory = DbMemoryStore(app.state.session_factory, task_id=task_id, tenant_id="acme")
    learner = RunLearnings("list the red kettles and their delivery terms", task_id)
    learner.reached_url(FACT_PAGE)
    if fact:
        learner.page_text, learner.page_url = "Free delivery over 50 EUR", FACT_PAGE
        learner.fact({"key": "delivery", "value": "Free delivery over 50 EUR", "confidence": 1})
    outcome = AgentOutcome("ok", True, "succeeded", 2, 2, 0, 0)
    await learner.commit(memory, outcome, FACT_PAGE)
    await memory.flush()
    return learner


async def test_a_domain_shows_its_routes_counters_and_its_facts_provenance(db_url: str) -> None:
    async with keyed_app(db_url) as (app, c):
        key = await new_key(app, "acme", L)
        first, _, written = await _run(app, "t1", ONE, kettle_script())
        assert first.success and written is not None
        whole, recorder, _ = await _run(app, "t2", TWO, [done("45.00 EUR")])
        assert whole.success
        fallback = [click("Blue kettles (new)"), *kettle_script("Blue", "Nimbus", "1.2")[1:]]
        fallback[3] = act("type", "City", text="Paris")
        fell, _, _ = await _run(app, "t3", TWO, fallback, rename=True)
        assert fell.success

        await _learn(app, "t4", fact=True)
        reader = await _learn(app, "t5", fact=False)  # the same intent: shown the fact

        body = (await c.get("/v1/domains/shop.test", headers=bearer(key))).json()
        (route,) = body["routes"]
        assert route["intent"].startswith("filter by colour {} open the {} {} and quote")
        assert route["slots"] == route["intent"].count("{}") >= 5
        assert route["steps"] == 4 and route["version"] == 2
        assert (route["replays"], route["fallbacks"], route["successes"]) == (2, 1, 2)
        assert route["task_id"] == "t3"  # the fallback rewrote it
        (fact,) = body["facts"]
        assert (fact["key"], fact["value"]) == ("delivery", "Free delivery over 50 EUR")
        assert (fact["task_id"], fact["page"], fact["used_by"]) == ("t4", FACT_PAGE, ["t5"])

        # the run's record: which memory it used, what that saved
        recorder.worker_latency = [2.0, 4.0]
        used = memory_used(recorder, reader.facts_used, None, 0)
        assert used is not None
        assert used["route"]["replayed_steps"] == 4 and used["route"]["fell_back_at"] is None
        assert used["saved"] == {"calls": 4, "seconds": 12.0}
        assert memory_used(RouteRecorder(ONE, HOME), reader.facts_used, None, 0) == {
            "route": None,
            "facts": [{"domain": "shop.test", "key": "delivery"}],
            "saved": {"calls": 0, "seconds": 0.0},
            "stored": {"route": None, "facts": 0},
        }
        assert EventType.memory_used == "memory.used"
