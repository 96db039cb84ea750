"""The three-role brain through the HTTP API (issue 9): Orchestrator -> Planner -> Worker on a
multi-page site with a failing path and a working one, dead ends across runs, GET /ledger."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import ROUTES, Service, submit, wait_terminal
from tests.support.llm_server import Reply, ScriptedLLMServer, text_reply
from tests.support.quest import CODE, QUEST, STAGES, QuestSite, quest_policy

pytestmark = [pytest.mark.browser, pytest.mark.services]
SECOND = QUEST + " once more"
LOOKUP = "What is the confirmation code on this page"
CODE_LINE = re.compile(r"Code: (Q-\d+)")


def lookup_policy(request: dict[str, Any]) -> Reply:
    """The search route's one model call: answer from the fetched page text in the prompt."""
    assert not request.get("tools")  # no browser tools on the search route
    found = CODE_LINE.search(str(request["messages"][-1]["content"]))
    answer = {"answer": found[1] if found else "", "found": bool(found)}
    return text_reply(json.dumps(answer))


@pytest.fixture(scope="module")
def quest_site() -> Iterator[QuestSite]:
    ROUTES[SECOND] = ROUTES[QUEST] = quest_policy  # the e2e LLM routes by instruction
    ROUTES[LOOKUP] = lookup_policy
    try:
        with QuestSite() as site:
            yield site
    finally:
        for instruction in (QUEST, SECOND, LOOKUP):
            ROUTES.pop(instruction, None)


def events_of(service: Service, task_id: str, kind: str) -> list[dict]:
    return [e.data for e in service.stored_events(task_id) if e.type == kind]


def test_brain_avoids_a_dead_end_and_the_next_run_starts_with_it(
    service: Service, quest_site: QuestSite, e2e_llm: ScriptedLLMServer
) -> None:
    started = len(quest_site.visits)  # the site is shared by both deployments' runs
    with service.client() as client:
        first = submit(client, QUEST, quest_site.url("/desk/"), max_steps=25)
        body = wait_terminal(client, first, timeout=120)
        assert (body["status"], body["result"]["answer"]) == ("succeeded", CODE), body
        assert body["usage"]["steps"] == STAGES + 4  # quick order, back, catalogue, 10 pages, done

        route = events_of(service, first, "route.decided")
        assert [(r["kind"], r["source"]) for r in route] == [("browser", "classifier")]
        plans = events_of(service, first, "plan.updated")
        # the Worker moves on page after page: no periodic review is worth a call (issue 33)
        assert [p["trigger"] for p in plans] == ["completion"]
        assert plans[-1]["done"] is True
        dead = events_of(service, first, "dead_end.recorded")
        assert len(dead) == 1 and dead[0]["description"].startswith('click link "Quick order"')
        assert dead[0]["cause"] == "postcondition_miss" and dead[0]["url"].endswith("/desk/")
        assert events_of(service, first, "memory.evicted")

        ledger = client.get(f"/v1/tasks/{first}/ledger").json()
        assert [s["step"] for s in ledger["steps"]] == list(range(1, STAGES + 5))
        assert ledger["dead_ends"][0]["description"] == dead[0]["description"]
        assert ledger["snapshot"]["goal"] == QUEST
        assert quest_site.visits[started:].count("/desk/quick") == 1  # tried once, then avoided

        visits_before = len(quest_site.visits)
        second = submit(client, SECOND, quest_site.url("/desk/"), max_steps=25)
        body = wait_terminal(client, second, timeout=120)
        assert (body["status"], body["result"]["answer"], body["usage"]["steps"]) == (
            "succeeded",
            CODE,
            STAGES + 2,
        )
        assert "/desk/quick" not in quest_site.visits[visits_before:]
        # the dead end came from the first run: in the second run's prompts from the start,
        # inside the untrusted fence (earlier runs' page text), and not recorded again
        prompts = [json.dumps(r) for r in e2e_llm.requests if SECOND in json.dumps(r)]
        assert prompts and all("Quick order" in p for p in prompts[:1])
        fenced = prompts[0].split('<page_content untrusted=\\"true\\">')
        assert any("Quick order" in part.split("</page_content>")[0] for part in fenced[1:])
        assert events_of(service, second, "dead_end.recorded") == []


def test_a_lookup_takes_the_search_route_without_a_browser(
    service: Service, quest_site: QuestSite
) -> None:
    with service.client() as client:
        task_id = submit(client, LOOKUP, quest_site.url("/desk/done"))
        body = wait_terminal(client, task_id, timeout=60)
        assert (body["status"], body["result"]["answer"]) == ("succeeded", CODE), body
        assert body["usage"]["llm_calls"] == 1
        route = events_of(service, task_id, "route.decided")
        assert [(r["kind"], r["families"]) for r in route] == [("search", ["factual"])]
        fetched = events_of(service, task_id, "action.executed")
        assert [(a["action"], a["success"]) for a in fetched] == [("fetch", True)]
        assert events_of(service, task_id, "observation") == []  # no page was ever observed
