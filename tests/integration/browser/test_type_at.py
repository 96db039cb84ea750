"""type_at (seed 000 App. A browser_type_at): the snapper finds the field at a point, also
inside a same-origin iframe; a field that swallows the keys gets the value through the
native setter with input/change events (App. C.3). Asserted on the page's own state."""

from __future__ import annotations

import pytest
from playwright.async_api import Page

from app.settings import Settings
from workers.agent.protocols import Action
from workers.browser.session import PageSession

pytestmark = pytest.mark.browser


@pytest.fixture
def settings(chromium_path: str) -> Settings:
    """Humanized (type_at is checked with humanized typing: keys, one by one)."""
    return Settings(chromium_path=chromium_path, snapshot_max_tokens=1500, humanize=True)


async def _centre(page: Page, frame_selector: str | None, selector: str) -> tuple[float, float]:
    box = await page.locator(selector).bounding_box() if frame_selector is None else None
    if frame_selector is not None:
        box = await page.frame_locator(frame_selector).locator(selector).bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


async def test_type_at_points_iframes_and_key_swallowing_fields(
    page: Page, settings: Settings, probe_port: int
) -> None:
    s = await PageSession.open(page, settings)  # humanized typing: keys, one by one
    assert (await s.goto(f"http://127.0.0.1:{probe_port}/gallery_click/type_at.html")).success
    await page.wait_for_load_state("load")
    x, y = await _centre(page, "#quiz", "#answer")
    typed = await s.execute(Action("type_at", {"x": x, "y": y, "text": "42"}))
    assert typed.success, typed.reason
    assert "snap phase" in typed.reason and "set directly" not in typed.reason
    assert await page.evaluate("state.answer") == "42"
    x, y = await _centre(page, None, "#code")
    forced = await s.execute(Action("type_at", {"x": x, "y": y, "text": "XJ-9"}))
    assert forced.success and "value set directly" in forced.reason
    assert await page.evaluate("state.code") == "XJ-9"
    # nothing editable there: refused, nothing typed
    missed = await s.execute(Action("type_at", {"x": 700, "y": 400, "text": "x"}))
    assert missed.error == "not_editable"
