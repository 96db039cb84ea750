"""PageSession edge cases on real Chromium: JS dialogs, new tabs, history start, options."""

from __future__ import annotations

import pytest

from workers.agent.protocols import Action
from workers.browser.session import PageSession

pytestmark = pytest.mark.browser


async def _open(session: PageSession, port: int) -> None:
    result = await session.goto(f"http://127.0.0.1:{port}/review.html")
    assert result.success, result.reason
    await session.observe()


def _ref(session: PageSession, name: str) -> str:
    assert session.last is not None
    matches = [n for n in session.last.nodes if n.interactive and n.name.startswith(name)]
    assert matches, f"{name!r} not in snapshot:\n{session.last.text}"
    return matches[0].ref


async def _log(session: PageSession) -> str:
    return await session.page.inner_text("#log")


async def test_js_dialogs_are_accepted_and_reported(session: PageSession, probe_port: int) -> None:
    await _open(session, probe_port)
    alert = await session.execute(Action("click", {"ref": _ref(session, "Show alert")}))
    assert alert.success, alert.reason  # an alert is a visible effect, not "no_effect"
    assert "Saved!" in alert.reason
    confirm = await session.execute(Action("click", {"ref": _ref(session, "Delete item")}))
    assert confirm.success and "Delete item?" in confirm.reason
    assert await _log(session) == "deleted"  # OK, not the silent dismissal
    await session.observe()
    asked = await session.execute(Action("click", {"ref": _ref(session, "Ask name")}))
    assert asked.success and await _log(session) == "name=Ada"


@pytest.mark.parametrize(
    ("control", "lands_on"), [("Open in new tab", "extra.html"), ("Open window", "long.html")]
)
async def test_a_new_tab_is_followed(
    session: PageSession, probe_port: int, control: str, lands_on: str
) -> None:
    await _open(session, probe_port)
    result = await session.execute(Action("click", {"ref": _ref(session, control)}))
    assert result.success and result.page_changed, result.reason
    assert session.url.endswith(lands_on) and "new tab" in result.reason
    page = await session.observe()
    assert page.url.endswith(lands_on) and page.version == 2
    result = await session.execute(Action("go_back", {}))
    assert not result.success and result.error == "no_history"


async def test_go_back_at_history_start_stays_on_the_task_page(
    session: PageSession, probe_port: int
) -> None:
    await _open(session, probe_port)  # the tab started on about:blank
    result = await session.execute(Action("go_back", {}))
    assert not result.success and result.error == "no_history"
    assert session.url.endswith("review.html")


async def test_select_by_label_value_or_loose_label(session: PageSession, probe_port: int) -> None:
    await _open(session, probe_port)
    ref = _ref(session, "Colour")
    result = await session.execute(
        Action("select_option", {"ref": ref, "values": ["Red", "g", "dark blue"]})
    )
    assert result.success, result.reason
    chosen = await session.page.eval_on_selector(
        "#colour", "s => Array.from(s.selectedOptions).map(o => o.value)"
    )
    assert chosen == ["r", "g", "b"]
    await session.observe()
    missing = await session.execute(
        Action("select_option", {"ref": _ref(session, "Colour"), "values": ["Purple"]})
    )
    assert not missing.success and missing.error == "option_not_found"
    assert "'Purple'" in missing.reason and "'Green'" in missing.reason


async def test_stale_ref_points_at_refs_that_stay_valid(
    session: PageSession, probe_port: int
) -> None:
    await _open(session, probe_port)
    old = _ref(session, "Show alert")
    # moved far away: no longer recognisably the same element, so not re-resolved
    await session.page.add_style_tag(content="body { padding-top: 400px; }")
    session.invalidate()
    await session.observe()  # version 2: refs of version 1 are stale
    stale = await session.execute(Action("click", {"ref": old}))
    assert not stale.success and stale.error == "stale_ref"
    again = await session.execute(Action("click", {"ref": old}))  # same batch, same mistake
    assert again.data["version"] == stale.data["version"]
    page = await session.observe()
    assert page.version == stale.data["version"]  # the alternatives offered still resolve
    follow = await session.execute(Action("click", {"ref": stale.alternatives[0].split()[0]}))
    assert follow.success, follow.reason
