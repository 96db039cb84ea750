"""A page that navigates while it is being observed (hardening issue, item 3).

A start page with `<meta http-equiv="refresh" content="0;url=...">` destroyed the execution
context under the snapshot walker: the task failed `browser_error` ("Execution context was
destroyed") before the first model call. A navigation the URL policy blocks left the model on
`chrome-error://chromewebdata/`. Observation now waits for the new document and retries, and
a blocked navigation leads back to the last good page with a note saying what was refused.
"""

from __future__ import annotations

import pytest
from playwright.async_api import Page, Route

from app.settings import Settings
from workers.agent.protocols import Action
from workers.browser.session import PageSession

BLOCK_ERROR = "blockedbyclient"


@pytest.mark.parametrize("start", ["refresh_now.html", "refresh_soon.html"])
async def test_a_start_page_that_redirects_at_once_is_observed_after_the_redirect(
    session: PageSession, probe_port: int, start: str
) -> None:
    for _ in range(3):  # the race depends on timing: every attempt must land on the target
        result = await session.goto(f"http://127.0.0.1:{probe_port}/{start}")
        assert result.success, result.reason
        obs = await session.observe()
        assert "Welcome home" in obs.text, obs.text
        assert obs.url.endswith("/refresh_target.html")


async def test_a_blocked_navigation_leads_back_to_the_last_good_page(
    page: Page, settings: Settings, probe_port: int
) -> None:
    async def refuse(route: Route) -> None:  # what the pool's request guard does
        await route.abort(BLOCK_ERROR)

    await page.route("**/blocked/**", refuse)
    session = await PageSession.open(page, settings)
    start = f"http://127.0.0.1:{probe_port}/refresh_blocked.html"
    assert (await session.goto(start)).success
    first = await session.observe()
    ref = next(n.ref for n in session.last.nodes if n.name == "Go now")  # type: ignore[union-attr]
    await session.execute(Action("click", {"ref": ref}))
    obs = await session.observe()
    assert not obs.url.startswith("chrome-error:"), obs.url
    assert obs.url == start and "Start page" in obs.text
    assert "blocked/elsewhere.html" in obs.text and "refused" in obs.text, obs.text
    assert obs.version > first.version


async def test_reload_loads_the_page_again(session: PageSession, probe_port: int) -> None:
    """The `reload` tool (issue 26 item 12): a page that asks to be reloaded gets it."""
    assert (await session.goto(f"http://127.0.0.1:{probe_port}/refresh_target.html")).success
    await session.page.evaluate("() => { document.body.dataset.stale = 'yes'; }")
    result = await session.execute(Action("reload", {}))
    assert result.success and result.reason.startswith("Reloaded"), result.reason
    assert await session.page.evaluate("() => document.body.dataset.stale") is None
    assert "Welcome home" in (await session.observe()).text
