"""Settle on evidence (workers/browser/act/settle.py): the wait after an action ends when the
network is idle and the DOM has been quiet, not after a fixed pause; it follows a delayed
response to its render, ignores a ticking clock, and follows a navigation."""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import Page, Route

from workers.browser.act import settle, verify
from workers.browser.runtime.scripts import js

pytestmark = pytest.mark.browser

ORIGIN = "http://settle.test"
PAGE = """<!doctype html><html><body>
<button id="load" onclick="fetch('/api').then(r => r.text()).then(t => {
  document.getElementById('out').textContent = t; })">Load</button>
<button id="sync" onclick="document.getElementById('out').textContent = 'sync'">Sync</button>
<button id="later" onclick="setTimeout(() => {
  document.getElementById('out').textContent = 'later'; }, 10)">Later</button>
<a id="next" href="/next">Next</a>
<p id="out">empty</p><span id="clock">0</span>
<script>
let ticks = 0;
if (location.hash === '#clock') setInterval(() => {
  ticks += 1; document.getElementById('clock').textContent = String(ticks); }, 25);
</script></body></html>"""


async def _serve(page: Page, api_delay_s: float = 0.0) -> None:
    async def handle(route: Route) -> None:
        path = route.request.url.removeprefix(ORIGIN).split("#")[0]
        if path == "/api":
            await asyncio.sleep(api_delay_s)
            await route.fulfill(body="from the server", content_type="text/plain")
        elif path == "/next":
            await route.fulfill(body="<h1>Second page</h1>", content_type="text/html")
        else:
            await route.fulfill(body=PAGE, content_type="text/html")

    await page.route(f"{ORIGIN}/**", handle)


async def _click(
    page: Page, selector: str, config: settle.SettleConfig = settle.SettleConfig()
) -> settle.Settled:
    watch = settle.NetworkWatch(page).start()
    try:
        await page.click(selector, no_wait_after=True)
        return await settle.until_settled(page, watch, config=config)
    finally:
        watch.stop()


async def test_waits_for_a_slow_response_and_its_render(page: Page) -> None:
    await _serve(page, api_delay_s=0.4)  # longer than the quiet window
    await page.goto(f"{ORIGIN}/")
    out = await _click(page, "#load")
    assert await page.text_content("#out") == "from the server"
    assert out.quiet and out.idle and out.requests == 1


async def test_a_synchronous_effect_ends_the_wait_by_quiet_not_by_the_cap(page: Page) -> None:
    await _serve(page)
    await page.goto(f"{ORIGIN}/")
    out = await _click(page, "#sync")
    assert await page.text_content("#out") == "sync"
    assert out.quiet and out.idle and out.requests == 0


async def test_a_ticking_clock_does_not_hold_the_wait(page: Page) -> None:
    await _serve(page)
    await page.goto(f"{ORIGIN}/#clock")
    await page.evaluate(js("verify_tracker.js"))  # the ambient classifier PageSession installs
    # until it has classified the clock (it must see two ticks itself: a count read from the
    # page can be reached before the classifier was installed, on a loaded machine)
    await page.wait_for_function(
        "window.__webagentVerify.isAmbient(document.getElementById('clock'))"
    )
    out = await _click(page, "#sync")
    assert out.quiet, out  # the clock kept mutating the page all along
    assert await page.text_content("#out") == "sync"


async def test_the_clock_without_the_classifier_is_cut_at_the_cap(page: Page) -> None:
    """The control: the same page never rests when nobody calls the clock ambient."""
    await _serve(page)
    await page.goto(f"{ORIGIN}/#clock")
    await page.wait_for_function("Number(document.getElementById('clock').textContent) >= 4")
    watch = settle.NetworkWatch(page).start()
    try:
        await page.click("#sync", no_wait_after=True)
        config = settle.SettleConfig(cap_s=0.3)
        out = await settle.until_settled(page, watch, config=config)
    finally:
        watch.stop()
    assert not out.quiet and out.mutations > 0


async def test_a_navigation_is_followed_to_the_new_document(page: Page) -> None:
    await _serve(page)
    await page.goto(f"{ORIGIN}/")
    out = await _click(page, "#next")
    assert page.url == f"{ORIGIN}/next"
    assert await page.text_content("h1") == "Second page"
    assert out.idle


async def _armed_click(
    page: Page, selector: str, config: settle.SettleConfig = settle.SettleConfig()
) -> settle.Settled:
    """As PageSession does it: the effect session armed on the target, then the click."""
    el = await page.query_selector(selector)
    assert el is not None
    await verify.arm(page, page.main_frame, el, exact=True)
    return await _click(page, selector, config)


async def test_a_handler_that_changed_the_page_at_once_gets_the_short_window(page: Page) -> None:
    await _serve(page)
    await page.goto(f"{ORIGIN}/")
    out = await _armed_click(page, "#sync")
    assert out.quiet and out.window_s == settle.SYNC_QUIET_S, out
    assert await page.text_content("#out") == "sync"


async def test_a_handler_that_changes_the_page_later_keeps_the_full_window(page: Page) -> None:
    await _serve(page)
    await page.goto(f"{ORIGIN}/")
    out = await _armed_click(page, "#later")
    assert out.quiet and out.window_s == settle.QUIET_S, out  # nothing changed during the input


async def test_a_rendered_response_gets_the_short_window(page: Page) -> None:
    """The action's request has answered and the page changed after the answer: it has been
    drawn, so the short window ends the wait (the full one is for changes still to come)."""
    await _serve(page, api_delay_s=0.1)
    await page.goto(f"{ORIGIN}/")
    out = await _armed_click(page, "#load")
    assert await page.text_content("#out") == "from the server"
    assert out.quiet and out.idle and out.requests == 1, out
    assert out.window_s == settle.SYNC_QUIET_S, out


async def test_a_render_during_the_wait_ends_it_on_the_short_window_from_the_render(
    page: Page,
) -> None:
    """The wait was planned for the full window when it began (no answer yet); the render of
    the answer re-plans it to the short window after the render. It used to run out the
    full window first: every fetch-driven click paid ~50 ms instead of ~render + 20 ms."""
    long = settle.SettleConfig(quiet_s=2.0, cap_s=5.0)
    await _serve(page)
    await page.goto(f"{ORIGIN}/")
    out = await _armed_click(page, "#load", long)
    assert await page.text_content("#out") == "from the server"
    assert out.quiet and out.window_s == long.sync_quiet_s, out
    assert out.waited_s < long.quiet_s / 2, out  # ended by the render, not the full window
