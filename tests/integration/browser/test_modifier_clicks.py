"""Modifier clicks through the cascade (seed 000 §6.3): the CDP tier's own mouse events carry
the held modifiers (a key held with press_key action 'down', or the click's `modifiers`), so
shift-click, ctrl-click and held chords reach the page exactly like the Playwright tier's.
Asserted on the page's own record of each event (shiftKey, ctrlKey, ..., isTrusted)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import Page

from app.settings import Settings
from workers.agent.protocols import Action, ToolResult
from workers.browser.act.click import Hand, Target, TierFailed
from workers.browser.session import PageSession

pytestmark = pytest.mark.browser


@pytest.fixture
async def plain(page: Page, settings: Settings) -> AsyncIterator[PageSession]:
    s = await PageSession.open(page, settings.model_copy(update={"humanize": False}))
    yield s
    await s.close()


async def _open(s: PageSession, port: int) -> None:
    assert (await s.goto(f"http://127.0.0.1:{port}/gallery_click/modifiers.html")).success
    await s.observe()


def ref(s: PageSession, name: str) -> str:
    assert s.last is not None
    found = [n.ref for n in s.last.nodes if n.name == name]
    assert found, s.last.text
    return found[0]


async def click(s: PageSession, **args: Any) -> ToolResult:
    result = await s.execute(Action("click", args))
    assert result.success, result.reason
    return result


async def last_click(s: PageSession) -> dict[str, bool]:
    clicks: list[dict[str, bool]] = await s.page.evaluate("window.state.clicks")
    return clicks[-1]


async def test_cdp_tier_keeps_held_and_requested_modifiers(
    plain: PageSession, probe_port: int
) -> None:
    s = plain
    await _open(s, probe_port)
    probe = ref(s, "Record modifiers")
    plain_click = await click(s, ref=probe)
    assert plain_click.data["tier"] == "cdp"
    assert await last_click(s) == {
        "shift": False,
        "ctrl": False,
        "alt": False,
        "meta": False,
        "trusted": True,
    }
    # the click's own modifiers
    shifted = await click(s, ref=probe, modifiers="shift")
    assert shifted.data["tier"] == "cdp" and shifted.reason.startswith("Shift left click")
    assert await last_click(s) == {
        "shift": True,
        "ctrl": False,
        "alt": False,
        "meta": False,
        "trusted": True,
    }
    # a chord held down with press_key, then a click: both keys on the CDP events
    await s.execute(Action("press_key", {"key": "ctrl+alt", "action": "down"}))
    held = await click(s, ref=probe)
    assert held.data["tier"] == "cdp"
    assert await last_click(s) == {
        "shift": False,
        "ctrl": True,
        "alt": True,
        "meta": False,
        "trusted": True,
    }
    await s.execute(Action("press_key", {"key": "ctrl+alt", "action": "up"}))
    await click(s, ref=probe)
    assert (await last_click(s))["ctrl"] is False


async def test_shift_and_ctrl_click_select_rows_like_a_person(
    plain: PageSession, probe_port: int
) -> None:
    s = plain
    await _open(s, probe_port)
    await click(s, ref=ref(s, "Row 2"))
    await click(s, ref=ref(s, "Row 4"), modifiers=["Shift"])
    assert await s.page.evaluate("state.selected") == ["Row 2", "Row 3", "Row 4"]
    await s.execute(Action("press_key", {"key": "Control", "action": "down"}))
    toggled = await click(s, ref=ref(s, "Row 3"))
    await s.execute(Action("press_key", {"key": "Control", "action": "up"}))
    assert toggled.data["tier"] == "cdp"
    assert await s.page.evaluate("state.selected") == ["Row 2", "Row 4"]


async def test_playwright_tier_and_scripted_tier_with_modifiers(
    page: Page, settings: Settings, probe_port: int
) -> None:
    s = await PageSession.open(
        page, settings.model_copy(update={"humanize": False, "click_allow_untrusted": True})
    )
    await _open(s, probe_port)

    async def broken(hand: Hand, page: Page, t: Target) -> Any:
        raise TierFailed("action_failed", "tier disabled for this test")

    s.hand.tiers = {**s.hand.tiers, "cdp": broken}
    fell = await click(s, ref=ref(s, "Record modifiers"), modifiers=["Meta"])
    assert fell.data["tier"] == "playwright" and fell.tried == ("cdp", "playwright")
    assert await last_click(s) == {
        "shift": False,
        "ctrl": False,
        "alt": False,
        "meta": True,
        "trusted": True,
    }
    # the scripted click cannot hold keys: it refuses instead of clicking without them
    s.hand.tiers = {**s.hand.tiers, "playwright": broken}
    before = len(await s.page.evaluate("state.clicks"))
    refused = await s.execute(
        Action("click", {"ref": ref(s, "Record modifiers"), "modifiers": ["Shift"]})
    )
    assert not refused.success and "plain left click" in refused.reason
    assert len(await s.page.evaluate("state.clicks")) == before
