"""Compound workflows (seed 001 §2.5, App. A.5) through the tool layer on the workflows gallery
page: one agent action each, asserted on the page's own state (window.state)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.async_api import Page

from app.settings import Settings
from workers.agent.protocols import Action, ToolResult
from workers.browser.act.workflows import match
from workers.browser.session import PageSession

pytestmark = pytest.mark.browser


@pytest.fixture
async def fast(page: Page, settings: Settings) -> PageSession:
    return await PageSession.open(page, settings.model_copy(update={"humanize": False}))


async def _open(s: PageSession, port: int) -> None:
    result = await s.goto(f"http://127.0.0.1:{port}/gallery/workflows.html")
    assert result.success, result.reason
    await s.observe()


def ref(s: PageSession, name: str, role: str | None = None) -> str:
    assert s.last is not None
    for n in s.last.nodes:
        if n.interactive and n.name == name and (role is None or n.role == role):
            return n.ref
    raise AssertionError(f"{role or ''} {name!r} not in snapshot:\n{s.last.text}")


async def call(s: PageSession, tool: str, **args: Any) -> ToolResult:
    return await s.execute(Action(tool, args))


async def state(s: PageSession, key: str) -> Any:
    return await s.page.evaluate("k => window.state[k]", key)


async def test_choose_option_custom_native_missing_and_form(
    fast: PageSession, probe_port: int
) -> None:
    s = fast
    await _open(s, probe_port)
    country = ref(s, "Country")
    chosen = await call(s, "choose_option", ref=country, option="united states")
    assert chosen.success, chosen.reason
    assert await state(s, "country") == "United States"
    assert chosen.tried[0] == f"click trigger {country}" and "4 elements revealed" in chosen.tried
    assert "now shows 'United States'" in chosen.reason
    assert chosen.data["options"] == ["France", "Germany", "United States", "United Kingdom"]
    # a label the list lacks: the revealed options come back as next moves, the list closes
    await s.observe()
    missing = await call(s, "choose_option", ref=ref(s, "Country"), option="Spain")
    assert missing.error == "option_not_found" and "'France'" in missing.reason
    assert (
        missing.alternatives[0].startswith("choose_option ref=")
        and "France" in (missing.alternatives[0])
    )
    assert await s.page.is_hidden("#country-list")
    # native select: set directly
    await s.observe()
    native = await call(s, "choose_option", ref=ref(s, "Size"), option="Medium")
    assert native.success and native.tried[0] == "native select"
    assert await state(s, "size") == "Medium"
    # a text field that shows suggestions only while typing: the label is typed, then picked
    await s.observe()
    typed = await call(s, "choose_option", ref=ref(s, "Search products"), option="Laptop sleeve")
    assert typed.success, typed.reason
    assert "typed 'Laptop sleeve': 1 elements revealed" in typed.tried
    assert await state(s, "search") == "Laptop sleeve"
    # a trigger that reveals a form: reported for fill_form, nothing chosen
    await s.observe()
    panel = await call(s, "choose_option", ref=ref(s, "Account ▾"), option="Sign in")
    assert panel.success and panel.data["form"] is True and "fill_form" in panel.reason


async def test_search_picks_a_suggestion_or_presses_enter(
    fast: PageSession, probe_port: int
) -> None:
    s = fast
    await _open(s, probe_port)
    picked = await call(s, "search", ref=ref(s, "Search products"), query="lapt", pick="sleeve")
    assert picked.success, picked.reason
    assert await state(s, "search") == "Laptop sleeve" and await state(s, "searched") is None
    assert picked.data["suggestions"] == ["Laptop stand", "Laptop sleeve", "Laptop"]
    # no pick: the suggestion equal to the query is clicked, then no Enter needed
    await s.observe()
    exact = await call(s, "search", ref=ref(s, "Search products"), query="Laptop")
    assert exact.success and await state(s, "search") == "Laptop"
    # no equal suggestion: Enter issues the search
    await s.observe()
    typed = await call(s, "search", ref=ref(s, "Search products"), query="lam")
    assert typed.success and typed.tried[-1] == "press Enter"
    assert await state(s, "searched") == "lam"
    # a pick that is not offered: nothing submitted, the suggestions are the next moves
    await s.page.evaluate("window.state.searched = null")
    await s.observe()
    absent = await call(s, "search", ref=ref(s, "Search products"), query="key", pick="Mouse")
    assert absent.error == "option_not_found" and "'Keyboard'" in absent.reason
    assert await state(s, "searched") is None


async def test_fill_form_refills_reviews_and_submits(fast: PageSession, probe_port: int) -> None:
    s = fast
    await _open(s, probe_port)
    fields = _signup(s)
    # the required terms box is left out: reviewed as a problem, submit refused
    refused = await call(s, "fill_form", fields=fields, submit=True)
    assert refused.error == "form_invalid", refused.reason
    assert "'I accept the terms' (required, empty)" in refused.reason
    assert await state(s, "submits") == 0
    assert any("'Phone' re-filled by keystrokes" in t for t in refused.tried)
    assert await s.page.input_value("#phone") == "(555) 123-4567"
    assert await state(s, "plan") == "Pro"
    # with the box: filled (again), then submitted through the form's own button
    await s.observe()
    fields = {**_signup(s), ref(s, "I accept the terms"): True}
    done = await call(s, "fill_form", fields=fields, submit=True)
    assert done.success, done.reason
    assert done.tried[-1] == "submit: ok" and await state(s, "submits") == 1
    assert await state(s, "submitted") == {
        "name": "Ada Lovelace",
        "email": "ada@example.org",
        "phone": "(555) 123-4567",
        "plan": "Pro",
        "news": False,
        "terms": True,
        "color": "blue",
        "notes": "first line",
    }


def _signup(s: PageSession) -> dict[str, Any]:
    return {
        ref(s, "Full name"): "Ada Lovelace",
        ref(s, "Email"): "ada@example.org",
        ref(s, "Phone"): "5551234567",  # keystroke-only mask: the fill is undone, re-filled
        ref(s, "Plan", "combobox"): "Pro",
        ref(s, "Newsletter"): False,
        ref(s, "Blue"): True,
        ref(s, "Notes"): "first line",
    }


async def test_fill_form_without_submit_reviews_only(fast: PageSession, probe_port: int) -> None:
    s = fast
    await _open(s, probe_port)
    result = await call(s, "fill_form", fields=[{"ref": ref(s, "Email"), "value": "not-an-email"}])
    assert result.success and await state(s, "submits") == 0
    assert "'Email' (invalid)" in result.reason and "Full name=''" in result.reason
    assert result.data["submit"] == "Create account"
    # a radio named by its label through any radio of the group; an unknown one is refused
    await s.observe()
    red = await call(s, "fill_form", fields={ref(s, "Blue"): "Red"})
    assert red.success and await s.page.is_checked("input[value=red]")
    await s.observe()
    green = await call(s, "fill_form", fields={ref(s, "Blue"): "Green"})
    assert green.error == "option_not_found" and "no option 'Green'" in green.reason


def test_match_prefers_exact_then_prefix_then_shortest_containing() -> None:
    labels = ["Laptop stand", "Laptop", "Big laptop bag", "Lamp"]
    assert match(labels, "laptop") == 1
    assert match(labels, "lap") == 0
    assert match(labels, "top") == 1
    assert match(labels, "chair") is None


async def test_fill_form_never_echoes_a_password(fast: PageSession, probe_port: int) -> None:
    s = fast
    await _open(s, probe_port)
    await call(s, "choose_option", ref=ref(s, "Account ▾"), option="x")  # reveals the panel
    await s.observe()
    fields = {ref(s, "User"): "ada", ref(s, "Password"): "hunter2-Secret"}
    result = await call(s, "fill_form", fields=fields)
    assert result.success, result.reason
    assert await s.page.input_value("input[type=password]") == "hunter2-Secret"
    assert "hunter2" not in result.reason + str(result.data) + str(result.tried)
    assert "Password='***'" in result.reason
