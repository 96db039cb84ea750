"""Task profiles (seed 003 §9.3) and forbid_login (seed 004 App. C.5) in the tool layer."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from app.contracts import TaskProfile
from tests.unit.agent.test_search import WIKI, FakeFetcher, Opener
from workers.agent.loop.loop import run_agent
from workers.agent.loop.search import run_task
from workers.agent.people.task_profiles import ALLOWED_TOOLS, ProfileGuard, allowed_tools
from workers.agent.protocols import Action, ActionTarget, AgentTask, FetchedPage
from workers.agent.testing import (
    BRAIN_SIDE,
    FakeBrowser,
    FakeLLM,
    InspectableBrowser,
    RecordingSink,
    reply,
)
from workers.agent.tools.offer import ToolOffer
from workers.agent.tools.registry import TOOLS

HOME = "http://shop.example/"
DONE_URL = "http://shop.example/done"
PAGES: dict[str, Any] = {
    HOME: [
        ("searchbox", "Search products", None),
        ("textbox", "Your comment", None),
        ("button", "Post comment", DONE_URL),
        ("link", "Reviews", DONE_URL),
        ("textbox", "Find a store", None),
    ],
    DONE_URL: [("heading", "ok", None)],
}
PAGE_TEXT = "\n".join(
    f'[1:{i}] {role} "{name}"' for i, (role, name, _) in enumerate(PAGES[HOME], 1)
)


def task(profile: str, *, forbid_login: bool = False) -> AgentTask:
    return AgentTask(
        "read the reviews",
        HOME,
        6,
        time.monotonic() + 60,
        task_profile=profile,
        forbid_login=forbid_login,
    )


def tool_results(prompt: list[Any]) -> list[dict[str, Any]]:
    return [json.loads(m["content"]) for m in prompt if m["role"] == "tool"]


@pytest.mark.parametrize(
    ("profile", "absent", "present"),
    [
        ("assistant", {"click", "type", "press_key", "tabs", "select_option"}, {"read_text"}),
        ("research", {"upload_file", "select_option", "evaluate_script"}, {"click", "type"}),
        # select_option comes with the page's first dropdown (tools by need, issue 31 item 3)
        ("data_entry", {"tabs", "evaluate_script", "drag"}, {"type", "click"}),
        # tools by need: the page's searchbox brings `search`; tabs and drag wait for a need
        ("general", set(), {"click", "type", "search", "more_tools"}),
    ],
)
async def test_a_profile_offers_only_its_tools(
    profile: str, absent: set[str], present: set[str]
) -> None:
    llm = FakeLLM([reply(("done", {"answer": "x", "success": True}))], BRAIN_SIDE)
    await run_agent(task(profile), FakeBrowser(PAGES), llm, RecordingSink())
    offered = set(llm.offered[0])
    assert not offered & absent
    assert present <= offered
    assert "done" in offered
    bound = allowed_tools(profile)  # what more_tools may still enable: the profile's tools only
    may = ToolOffer(instruction="x", only=bound)
    assert not {n for n in absent if may.allows(n)}
    assert bound is not None or (may.allows("tabs") and may.allows("drag"))


def test_every_profile_names_only_registered_or_workflow_tools() -> None:
    workflows = {"choose_option", "fill_form", "search"}
    for names in ALLOWED_TOOLS.values():
        assert names is None or names <= set(TOOLS) | workflows
    assert allowed_tools(None) is None and allowed_tools("general") is None
    with pytest.raises(ValueError):
        allowed_tools("admin")


async def test_assistant_refuses_a_click_it_was_not_offered() -> None:
    browser, sink = FakeBrowser(PAGES), RecordingSink()
    llm = FakeLLM(
        [
            reply(("click", {"ref": "1:3"})),
            reply(("done", {"answer": "read only", "success": True})),
        ],
        BRAIN_SIDE,
    )
    outcome = await run_agent(task("assistant"), browser, llm, sink)
    assert outcome.status == "succeeded"
    assert not [a for a in browser.actions if a.name == "click"]  # never reached the browser
    assert browser.current == HOME
    result = tool_results(llm.prompts[1])[0]
    assert result["error"] == "tool_not_allowed" and "assistant" in result["reason"]


async def test_research_types_into_search_fields_only() -> None:
    browser, sink = FakeBrowser(PAGES), RecordingSink()
    llm = FakeLLM(
        [
            reply(("type", {"ref": "1:2", "text": "great product!"})),
            reply(("type", {"ref": "1:1", "text": "lamp"})),  # same page version: nothing changed
            reply(("done", {"answer": "searched", "success": True})),
        ],
        BRAIN_SIDE,
    )
    await run_agent(task("research"), browser, llm, sink)
    typed = [a for a in browser.actions if a.name == "type"]
    assert [a.args["text"] for a in typed] == ["lamp"]
    refused = tool_results(llm.prompts[1])[0]
    assert refused["error"] == "tool_not_allowed"
    assert 'textbox "Your comment"' in refused["reason"]
    events = [e for e in sink.of_type("action.executed") if e["action"] == "type"]
    assert [e["error"] for e in events][:1] == ["tool_not_allowed"]


def test_research_rules_on_the_target_element() -> None:
    guard = ProfileGuard(TaskProfile.research)

    def check(name: str, **args: Any) -> str | None:
        result = guard.check(Action(name, args), PAGE_TEXT)
        return None if result is None else result.error

    assert check("click", ref="1:3") == "tool_not_allowed"  # "Post comment"
    assert check("click", ref="1:4") is None  # a link to read
    assert check("type", ref="1:5", text="Berlin") is None  # "Find a store" is a search field
    assert check("press_key", key="Enter") is None  # right after a search
    assert check("click", ref="1:4") is None
    assert check("press_key", key="Enter") == "tool_not_allowed"  # not after a search
    assert check("type", ref="9:9", text="x") == "tool_not_allowed"  # unknown element
    assert check("search", ref="1:1", query="lamp") is None  # the search workflow, same rule
    assert check("search", ref="1:2", query="lamp") == "tool_not_allowed"
    bulk = Action(
        "bulk",
        {
            "actions": [
                {"tool": "type", "args": {"ref": "1:1", "text": "lamp"}},
                {"tool": "type", "args": {"ref": "1:2", "text": "spam"}},
            ]
        },
    )
    refusal = guard.check(bulk, PAGE_TEXT)
    assert refusal is not None and "Your comment" in refusal.reason


def test_assistant_refuses_every_interaction_inside_bulk() -> None:
    guard = ProfileGuard(TaskProfile.assistant)
    inner = {"tool": "click", "args": {"ref": "1:4"}}
    assert guard.check(Action("bulk", {"actions": [inner]}), PAGE_TEXT) is not None
    assert guard.check(Action("scroll", {"direction": "down"}), PAGE_TEXT) is None
    assert guard.check(Action("evaluate_script", {"script": "1"}), PAGE_TEXT) is not None


async def test_forbid_login_fails_the_task_on_a_login_form() -> None:
    login = "http://shop.example/login"
    pages: dict[str, Any] = {
        HOME: [("link", "Sign in", login)],
        login: [("textbox", "Email", None), ("password", "Password", None)],
    }
    llm = FakeLLM([reply(("click", {"ref": "1:1"})), reply(("done", {"answer": "x"}))], BRAIN_SIDE)
    browser = FakeBrowser(pages)
    outcome = await run_agent(task("general", forbid_login=True), browser, llm, RecordingSink())
    assert outcome.status == "failed"
    assert outcome.error == "login_prohibited"
    assert "login_prohibited" in outcome.reason and login in outcome.reason
    assert len(llm.prompts) == 1  # the model never saw the login page


async def test_without_forbid_login_a_login_form_is_just_a_page() -> None:
    pages: dict[str, Any] = {HOME: [("password", "Password", None)]}
    llm = FakeLLM([reply(("done", {"answer": "x", "success": True}))], BRAIN_SIDE)
    outcome = await run_agent(task("general"), FakeBrowser(pages), llm, RecordingSink())
    assert outcome.status == "succeeded"


async def test_research_refuses_a_click_that_submits_a_form_other_than_a_search() -> None:
    pages: dict[str, Any] = {
        HOME: [("button", "Continue", DONE_URL), ("button", "Go", DONE_URL)],
        DONE_URL: [("heading", "ok", None)],
    }
    browser = InspectableBrowser(pages)
    browser.targets = {
        "Continue": ActionTarget(
            role="button",
            name="Continue",
            submits=True,
            form_action="http://shop.example/comments",
            form_text="Leave a comment Continue",
        ),
        "Go": ActionTarget(
            role="button",
            name="Go",
            submits=True,
            form_action="http://shop.example/search",
            form_text="Go",
        ),
    }
    guard = ProfileGuard(TaskProfile.research)
    await browser.goto(HOME)
    text = (await browser.observe()).text
    version = browser.version
    refusal = await guard.check_on(browser, Action("click", {"ref": f"{version}:1"}), text)
    assert refusal is not None and "other than a search" in refusal.reason
    assert await guard.check_on(browser, Action("click", {"ref": f"{version}:2"}), text) is None
    general = ProfileGuard(TaskProfile.general)
    assert await general.check_on(browser, Action("click", {"ref": f"{version}:1"}), text) is None


async def test_a_lookup_with_private_regions_takes_the_browser_not_the_text_route() -> None:
    """Fetched page text cannot leave a CSS region out, so the search route is skipped."""
    fetcher = FakeFetcher({WIKI: FetchedPage(WIKI, 200, "Norway", "Capital: Oslo")})
    llm = FakeLLM([reply(("done", {"answer": "Oslo", "success": True}))], BRAIN_SIDE)
    sink, opener = RecordingSink(), Opener()
    lookup = AgentTask(
        "What is the capital of Norway", WIKI, 5, time.monotonic() + 30, private_regions=("#x",)
    )
    await run_task(lookup, opener, llm, sink, fetcher=fetcher)
    assert fetcher.fetched == [] and opener.opened == 1
    assert sink.of_type("route.decided")[0]["kind"] == "browser"
