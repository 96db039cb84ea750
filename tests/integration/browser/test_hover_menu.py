"""Issue 31 item 4, hover menus: an item of a flyout submenu that is open because the pointer
is over its parent ("Shop" > "Electronics" > "Drones") is reachable by a click, whether the
menu was opened with `hover` or with clicks. Before, the humanized cursor curve cut across
the neighbouring items ("Books", ..., "Toys"), their flyouts opened, the one meant closed,
and the press landed on another item ("Kites" got picked, the click was reported missed)."""

from __future__ import annotations

import pytest
from playwright.async_api import Page

from app.settings import Settings
from tests.integration.browser.test_gallery import ref
from workers.agent.protocols import Action
from workers.browser.session import PageSession

pytestmark = pytest.mark.browser


async def _open(s: PageSession, port: int) -> None:
    assert (await s.goto(f"http://127.0.0.1:{port}/actions/hover_menu.html")).success
    await s.observe()


async def _step(s: PageSession, tool: str, name: str) -> str:
    result = await s.execute(Action(tool, {"ref": ref(s, name)}))
    assert result.success, f"{tool} {name}: {result.error} {result.reason}"
    await s.observe()
    return result.reason


@pytest.mark.parametrize("opener", ["hover", "click"])
async def test_an_item_of_a_flyout_opened_by_the_pointer_gets_the_click(
    page: Page, settings: Settings, probe_port: int, opener: str
) -> None:
    # humanized: the cursor sweeps a path, as in production (main's fixture types plainly)
    session = await PageSession.open(page, settings.model_copy(update={"humanize": True}))
    await _open(session, probe_port)
    await _step(session, opener, "Shop")
    await _step(session, opener, "Electronics")
    for item in ("Drones", "Phones"):  # the last row first, then back up to the first
        await _step(session, "click", item)
        assert await page.inner_text("#picked") == item
