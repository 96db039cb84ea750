"""Private regions (issue 12, snapshot filtering, workers/browser/runtime/regions.py):
subtrees named by CSS selectors never reach the snapshot text, read_text or dom_search, and are
painted black in screenshots; a selector the browser rejects fails the observation."""

from __future__ import annotations

import io
from collections.abc import AsyncIterator

import pytest
from PIL import Image
from playwright.async_api import Browser

from app.settings import Settings
from workers.agent.protocols import Action
from workers.browser.observe import som
from workers.browser.runtime.profile import SessionProfile
from workers.browser.runtime.regions import HiddenRegionError, HiddenRegions
from workers.browser.session import PageSession

pytestmark = [pytest.mark.browser]

CANARIES = ("CANARY-4242-ACCT", "CANARY-ALT", "CANARY-LABEL", "CANARY-SHADOW", "CANARY-FRAME")


@pytest.fixture
async def private_page(
    chromium_browser: Browser, chromium_path: str, probe_port: int
) -> AsyncIterator[PageSession]:
    context = await chromium_browser.new_context(viewport={"width": 1000, "height": 700})
    session = await PageSession.open(
        await context.new_page(), Settings(chromium_path=chromium_path)
    )
    session.hidden_regions = HiddenRegions.of(["#account", ".pii"])
    result = await session.goto(f"http://127.0.0.1:{probe_port}/fidelity/private.html")
    assert result.success, result.reason
    yield session
    await context.close()


def _pixels(jpeg: bytes) -> Image.Image:
    return Image.open(io.BytesIO(jpeg)).convert("RGB")


def _rgb(img: Image.Image, x: int, y: int) -> tuple[int, ...]:
    px = img.getpixel((x, y))
    assert isinstance(px, tuple)
    return px


async def test_private_region_never_reaches_text_tools(private_page: PageSession) -> None:
    obs = await private_page.observe()
    assert "Public text stays." in obs.text and "Card header" in obs.text, obs.text
    assert "Frame text" in obs.text, obs.text  # a child frame is walked with the same regions
    for canary in CANARIES:
        assert canary not in obs.text, (canary, obs.text)
        assert canary not in str(obs.stats), canary  # no dropped-text sample either
    assert obs.stats["hidden_reasons"].get("private", 0) >= 2
    page_text = await private_page.execute(Action("read_text", {}))
    assert page_text.success and "Public text stays." in str(page_text.data)
    assert not any(c in str(page_text.data) for c in CANARIES), page_text.data
    found = await private_page.execute(Action("dom_search", {"query": "CANARY"}))
    assert not found.success, found


async def test_private_region_is_black_in_screenshots(private_page: PageSession) -> None:
    await private_page.observe()
    page = private_page.page
    box = await page.locator("#account").bounding_box()
    in_frame = await page.frame_locator("iframe").locator(".pii").bounding_box()
    assert box is not None and in_frame is not None
    for shot in (await private_page.screenshot(), await som.shoot(page, jpeg=True, quality=90)):
        img = _pixels(shot)
        for b in (box, in_frame):  # the main document's region and one inside a child frame
            x0, y0 = int(b["x"]) + 3, int(b["y"]) + 3
            x1, y1 = int(b["x"] + b["width"]) - 3, int(b["y"] + b["height"]) - 3
            inside = [_rgb(img, x, y) for x in range(x0, x1, 5) for y in range(y0, y1, 5)]
            assert inside and max(max(p) for p in inside) < 40, ("private region not black", b)
        outside = _rgb(img, int(box["x"] + box["width"]) + 40, int(box["y"]) + 10)
        assert min(outside) > 200  # the page around it is untouched (white)


async def test_rejected_selector_fails_closed(private_page: PageSession) -> None:
    private_page.hidden_regions = HiddenRegions(("#account", "div[["))
    private_page.invalidate()
    with pytest.raises(HiddenRegionError):
        await private_page.observe()


def test_selectors_are_validated() -> None:
    assert HiddenRegions.of(None).selector is None and not HiddenRegions.of([])
    assert HiddenRegions.of([" #a ", "#a", ".b"]).selectors == ("#a", ".b")
    for bad in ("", "a { color: red }", "a; b", "x" * 400):
        with pytest.raises(HiddenRegionError):
            HiddenRegions.of([bad])


async def test_scripts_are_refused_with_private_regions(
    chromium_browser: Browser, chromium_path: str, probe_port: int
) -> None:
    """Page JS could read a private region, so evaluate_script is refused even on a task
    whose profile allows scripts; without regions the same call runs."""
    context = await chromium_browser.new_context()
    try:
        session = await PageSession.open(
            await context.new_page(),
            Settings(chromium_path=chromium_path),
            profile=SessionProfile(allow_scripts=True),
        )
        assert (await session.goto(f"http://127.0.0.1:{probe_port}/fidelity/private.html")).success
        script = Action("evaluate_script", {"script": "document.body.innerText"})
        session.hidden_regions = HiddenRegions.of(["#account"])
        refused = await session.execute(script)
        assert not refused.success and refused.error == "scripts_not_allowed", refused
        assert "CANARY" not in str(refused), refused
        session.hidden_regions = HiddenRegions.of([])
        ran = await session.execute(script)
        assert ran.success and "CANARY-4242-ACCT" in str(ran.data), ran
    finally:
        await context.close()


async def test_regions_named_by_landmark_are_hidden(
    chromium_browser: Browser, chromium_path: str, probe_port: int
) -> None:
    context = await chromium_browser.new_context()
    try:
        session = await PageSession.open(
            await context.new_page(), Settings(chromium_path=chromium_path)
        )
        session.hidden_regions = HiddenRegions.of(["landmark:navigation", "landmark:Messages"])
        url = f"http://127.0.0.1:{probe_port}/fidelity/private_landmarks.html"
        assert (await session.goto(url)).success
        text = (await session.observe()).text
        assert "Compose a new message." in text and "Ads stay visible." in text, text
        assert "CANARY-NAV-LINK" not in text and "CANARY-MESSAGE" not in text, text
    finally:
        await context.close()
