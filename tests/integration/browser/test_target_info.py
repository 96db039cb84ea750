"""What an action would touch, read on real Chromium (workers/browser/act/target_info.py), and
the sensitive-action rules deciding on it; SupervisedBrowser over a real PageSession keeps a
denied click off the page."""

from __future__ import annotations

import pytest

from workers.agent.people.approvals import sensitivity
from workers.agent.people.supervised import SupervisedBrowser, Supervision
from workers.agent.protocols import Action, ActionTarget
from workers.agent.testing import ScriptedGate
from workers.browser.session import PageSession

pytestmark = pytest.mark.browser


async def _open(session: PageSession, port: int) -> None:
    result = await session.goto(f"http://127.0.0.1:{port}/approvals.html")
    assert result.success, result.reason
    await session.observe()


def _ref(session: PageSession, *names: str) -> str:
    """The ref of the first interactive node whose name contains one of `names`."""
    assert session.last is not None
    for node in session.last.nodes:
        if node.interactive and any(n in node.name for n in names):
            return str(node.ref)
    raise AssertionError(f"none of {names} in:\n{session.last.text}")


async def _target(session: PageSession, action: Action) -> ActionTarget:
    target = await session.inspect_target(action)
    assert target is not None, action
    return target


async def _clicks(session: PageSession) -> list[str]:
    return list(await session.page.evaluate("window.clicks"))


async def test_button_text_and_aria_label_both_count(session: PageSession, probe_port: int) -> None:
    await _open(session, probe_port)
    click = Action("click", {"ref": _ref(session, "Delete account", "Remove forever")})
    target = await _target(session, click)
    assert "Remove forever" in target.name and "Delete account" in target.name
    assert target.role == "button" and target.page_url.endswith("/approvals.html")
    found = sensitivity(click, target)
    assert found is not None and found.rule == "keyword"
    harmless = Action("click", {"ref": _ref(session, "Refresh")})
    assert sensitivity(harmless, await _target(session, harmless)) is None
    assert await _clicks(session) == []  # inspecting touched nothing


async def test_forms(session: PageSession, probe_port: int) -> None:
    await _open(session, probe_port)
    close = Action("click", {"ref": _ref(session, "Continue")})
    target = await _target(session, close)
    assert target.submits and target.form_method == "post"
    assert target.form_action.endswith("/account/close")
    assert (found := sensitivity(close, target)) is not None and found.rule == "form_action"
    go = Action("click", {"ref": _ref(session, "Go")})
    found = sensitivity(go, await _target(session, go))
    assert found is not None and found.rule == "cross_origin"
    assert "collector.evil.test" in found.reason
    search = Action("type", {"ref": _ref(session, "Search terms"), "text": "x", "submit": True})
    assert sensitivity(search, await _target(session, search)) is None
    feedback = Action("type", {"ref": _ref(session, "Recipient"), "text": "x", "submit": True})
    target = await _target(session, feedback)
    assert "Send" in target.form_text
    assert sensitivity(feedback, target) is not None


async def test_form_controls_named_action_and_method(session: PageSession, probe_port: int) -> None:
    """Controls named "action" and "method" shadow form.action / form.method (DOM clobbering,
    as in Misago's admin bulk forms): the facts still carry the form's URL and method."""
    await _open(session, probe_port)
    bulk = Action("click", {"ref": _ref(session, "Activate accounts")})
    target = await _target(session, bulk)
    assert isinstance(target.form_action, str), target.form_action
    assert target.submits and target.form_action.endswith("/admin/users/")
    assert target.form_method == "post"
    assert sensitivity(bulk, target) is None  # a same-site form, no sensitive word


async def test_enter_on_the_focused_field(session: PageSession, probe_port: int) -> None:
    await _open(session, probe_port)
    await session.page.focus("input[name=to]")
    enter = Action("press_key", {"key": "Enter"})
    target = await _target(session, enter)
    assert target.name and "Send" in target.form_text
    assert sensitivity(enter, target) is not None
    await session.page.focus("input[name=q]")
    assert sensitivity(enter, await _target(session, enter)) is None


async def test_password_and_downloads(session: PageSession, probe_port: int) -> None:
    await _open(session, probe_port)
    typing = Action("type", {"ref": _ref(session, "Password"), "text": "x"})
    target = await _target(session, typing)
    assert target.input_type == "password"
    assert (found := sensitivity(typing, target)) is not None and found.kind == "login"
    for name, rule in (("Report archive", "download"), ("Receipt file", "download")):
        click = Action("click", {"ref": _ref(session, name)})
        found = sensitivity(click, await _target(session, click))
        assert found is not None and found.rule == rule, name
    view = Action("click", {"ref": _ref(session, "View receipt")})
    assert sensitivity(view, await _target(session, view)) is None


async def test_click_at_a_point_and_stale_refs(session: PageSession, probe_port: int) -> None:
    await _open(session, probe_port)
    box = await session.page.locator("button", has_text="Delete account").bounding_box()
    assert box is not None
    point = {"x": box["x"] + box["width"] / 2, "y": box["y"] + box["height"] / 2}
    target = await _target(session, Action("click_at", point))
    assert "Delete account" in target.name
    assert await session.inspect_target(Action("click", {"ref": "99:1"})) is None
    assert await session.inspect_target(Action("scroll", {})) is None


async def test_supervised_session_keeps_a_denied_click_off_the_page(
    session: PageSession, probe_port: int
) -> None:
    await _open(session, probe_port)
    gate = ScriptedGate(["denied", "approved"])
    browser = SupervisedBrowser(session, gate, Supervision())
    click = Action("click", {"ref": _ref(session, "Delete account", "Remove forever")})
    refused = await browser.execute(click)
    assert not refused.success and refused.error == "approval_denied"
    assert await _clicks(session) == []
    assert gate.requests[0].screenshot and gate.requests[0].screenshot.startswith(b"\xff\xd8")
    refresh = await browser.execute(Action("click", {"ref": _ref(session, "Refresh")}))
    assert refresh.success and await _clicks(session) == ["refresh"]
    assert len(gate.requests) == 1  # an ordinary click asks nobody


async def test_an_in_page_share_passes_until_recipients_are_typed(
    session: PageSession, probe_port: int
) -> None:
    """relay 2026-11-27 finding 6: an in-page "Share" was held by the keyword rule; typed
    recipients in its dialog are the evidence that a share goes out."""
    result = await session.goto(f"http://127.0.0.1:{probe_port}/share_dialog.html")
    assert result.success, result.reason
    await session.observe()
    assert session.last is not None
    refs = [str(n.ref) for n in session.last.nodes if n.interactive and n.name == "Share"]
    assert len(refs) == 2, session.last.text
    for ref in refs:
        target = await _target(session, Action("click", {"ref": ref}))
        assert not target.composed and sensitivity(Action("click", {"ref": ref}), target) is None
    await session.page.fill("#to", "bob@example.com")
    dialog = await _target(session, Action("click", {"ref": refs[1]}))
    assert dialog.composed and dialog.tag == "button"
    assert sensitivity(Action("click", {"ref": refs[1]}), dialog) is not None
    assert await _clicks(session) == []
