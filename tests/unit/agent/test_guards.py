"""Domain allowlisting in code (seed 003 §8.4.2): pure check + the loop leading the tab back."""

from __future__ import annotations

import json
import time

from workers.agent.loop.loop import run_agent
from workers.agent.people.guards import DomainGuard, off_allowlist
from workers.agent.protocols import AgentTask
from workers.agent.testing import BRAIN_SIDE, FakeBrowser, FakeLLM, RecordingSink, reply

HOME, AWAY = "http://shop.example/", "http://tracker.test/landing"
PAGES = {HOME: [("link", "Partner offer", AWAY)], AWAY: [("button", "Claim", None)]}


def test_off_allowlist_matches_on_domain_boundaries() -> None:
    allowed = ("shop.example",)
    assert off_allowlist("http://shop.example/a", allowed) is None
    assert off_allowlist("https://www.shop.example/", allowed) is None
    assert off_allowlist("http://badshop.example/", allowed) is not None
    assert off_allowlist("http://tracker.test/", ()) is None  # no allowlist: all allowed
    assert off_allowlist("about:blank", allowed) is None


def test_guard_remembers_the_last_allowed_page() -> None:
    guard = DomainGuard(("shop.example",))
    assert guard.last_allowed == "about:blank"
    assert guard.check("http://shop.example/cart") is None
    assert guard.check("http://tracker.test/") is not None
    assert guard.last_allowed == "http://shop.example/cart"


async def test_an_action_that_lands_off_the_allowlist_is_undone_and_reported() -> None:
    browser, sink = FakeBrowser(PAGES), RecordingSink()
    llm = FakeLLM(
        [
            reply(("click", {"ref": "1:1"})),
            reply(("done", {"answer": "no offer", "success": True})),
        ],
        BRAIN_SIDE,
    )
    task = AgentTask("find the price", HOME, 5, time.monotonic() + 60, ("shop.example",))
    outcome = await run_agent(task, browser, llm, sink)
    assert outcome.status == "succeeded"
    assert browser.current == HOME  # led back, never observed the tracker page
    second_prompt = llm.prompts[1]
    results = [json.loads(m["content"]) for m in second_prompt if m["role"] == "tool"]
    assert results[0]["error"] == "guard_violation" and "tracker.test" in results[0]["reason"]
    assert "Claim" not in json.dumps(second_prompt)


# Seed 000 §6.5 navigation guards
from workers.agent.people.guards import NavigationGuard  # noqa: E402


def test_oauth_and_cdn_safe_list_passes_domain_pinning() -> None:
    allowed = ("shop.example",)
    assert off_allowlist("https://accounts.google.com/o/oauth2/auth", allowed) is None
    assert off_allowlist("https://cdn.jsdelivr.net/npm/x.js", allowed) is None
    assert off_allowlist("https://www.google.com/search?q=x", allowed) is not None


def test_search_engine_pivot_is_refused_unless_pinned() -> None:
    guard = NavigationGuard(("shop.example",), "http://shop.example/")
    refused = guard.before_navigate("https://www.google.com/search?q=price")
    assert refused is not None and refused.error == "search_engine_refused"
    assert guard.before_navigate("https://duckduckgo.com/?q=price") is not None
    assert guard.before_navigate("https://www.bing.com/search?q=a") is not None
    assert guard.before_navigate("http://shop.example/search?q=price") is None
    free = NavigationGuard((), "http://shop.example/")
    assert free.before_navigate("https://search.yahoo.com/search?p=a") is not None
    pinned = NavigationGuard(("google.com",), "https://www.google.com/")
    assert pinned.before_navigate("https://www.google.com/search?q=a") is None


def test_a_url_that_served_a_challenge_is_not_renavigated() -> None:
    guard = NavigationGuard((), "http://shop.example/")
    guard.after_hop("http://shop.example/p", challenged=True)
    refused = guard.before_navigate("http://shop.example/p")
    assert refused is not None and refused.error == "challenge_pending"
    assert guard.before_navigate("http://shop.example/q") is None


def test_navigate_back_to_a_visited_url_is_flagged_not_refused() -> None:
    guard = NavigationGuard((), "http://shop.example/")
    guard.after_hop("http://shop.example/a", challenged=False)
    assert guard.before_navigate("http://shop.example/a") is None
    assert guard.regression("http://shop.example/a#top") is True
    assert guard.regression("http://shop.example/b") is False


async def test_the_loop_refuses_a_search_pivot_and_flags_a_regression() -> None:
    search = "https://www.google.com/search?q=price"
    info = "http://shop.example/info"
    pages = {**PAGES, search: [("link", "Result", HOME)], info: [("button", "Back", None)]}
    browser, sink = FakeBrowser(pages), RecordingSink()
    llm = FakeLLM(
        [
            reply(("navigate", {"url": search})),
            reply(("navigate", {"url": info})),
            reply(("navigate", {"url": HOME})),
            reply(("done", {"answer": "none", "success": True})),
        ],
        BRAIN_SIDE,
    )
    task = AgentTask("find the price", HOME, 5, time.monotonic() + 60, ("shop.example",))
    outcome = await run_agent(task, browser, llm, sink)
    assert outcome.status == "succeeded"
    refused = next(json.loads(m["content"]) for m in llm.prompts[1] if m["role"] == "tool")
    assert refused["error"] == "search_engine_refused"
    assert "Result" not in json.dumps(llm.prompts[1])
    flagged = [json.loads(m["content"]) for m in llm.prompts[3] if m["role"] == "tool"][-1]
    assert "regression" in flagged["reason"]


async def test_opening_the_current_page_again_is_a_reload_not_a_regression() -> None:
    """Issue 26 item 12: the page asked for a reload; the guard said "regression: repair the
    current state instead of restarting". Navigating to the current URL, or `reload`, is not
    flagged."""
    llm = FakeLLM(
        [
            reply(("navigate", {"url": HOME + "#top"})),
            reply(("reload", {})),
            reply(("done", {"answer": "none", "success": True})),
        ],
        BRAIN_SIDE,
    )
    task = AgentTask("reload the shop page", HOME, 5, time.monotonic() + 60, ("shop.example",))
    outcome = await run_agent(task, FakeBrowser(PAGES), llm, RecordingSink())
    assert outcome.status == "succeeded"
    results = [json.loads(m["content"]) for p in llm.prompts[1:] for m in p if m["role"] == "tool"]
    assert results and not any("regression" in r.get("reason", "") for r in results)
    assert "reload" in json.dumps(llm.offered)
