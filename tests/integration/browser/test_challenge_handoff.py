"""Challenge and block pages on real Chromium reach a person (workers/agent/people/challenges.py):
an interstitial after navigate or after a click, a regional block on an error status; an
article that only mentions "access denied" is not a block."""

from __future__ import annotations

import pytest
from playwright.async_api import Route

from workers.agent.errors import BotBlocked
from workers.agent.people.supervised import SupervisedBrowser, Supervision
from workers.agent.protocols import Action
from workers.agent.testing import ScriptedGate
from workers.browser.session import PageSession

pytestmark = pytest.mark.browser

GEO = "<title>Unavailable</title><h1>This content is not available in your country.</h1>"
ARTICLE = "<title>Help</title><h1>Fixing access denied errors</h1><p>Access denied means</p>"


def supervised(session: PageSession, *answers: str) -> tuple[SupervisedBrowser, ScriptedGate]:
    gate = ScriptedGate(list(answers))
    return SupervisedBrowser(session, gate, Supervision(sensitive_actions=False)), gate


async def _serve(session: PageSession, path: str, status: int, body: str) -> str:
    async def fulfil(route: Route) -> None:
        await route.fulfill(status=status, body=body, content_type="text/html")

    await session.page.route(f"**{path}", fulfil)
    return f"http://blocked.test{path}"


async def test_interstitial_after_navigate_is_handed_off(
    session: PageSession, probe_port: int
) -> None:
    browser, gate = supervised(session, "denied")
    url = f"http://127.0.0.1:{probe_port}/challenge.html"
    with pytest.raises(BotBlocked, match="denied"):
        await browser.execute(Action("navigate", {"url": url}))
    [asked] = gate.requests
    assert asked.kind == "challenge" and asked.url == url
    assert asked.details == {"kinds": ["cloudflare_interstitial"]}
    assert asked.screenshot and asked.screenshot.startswith(b"\xff\xd8")


async def test_approved_but_not_cleared_stays_a_bot_block(
    session: PageSession, probe_port: int
) -> None:
    probe = f"http://127.0.0.1:{probe_port}/probe.html"
    browser, gate = supervised(session, "approved")
    result = await browser.goto(f"http://127.0.0.1:{probe_port}/challenge.html")
    assert len(gate.requests) == 1
    # nobody really cleared it: approved, still a challenge after one reload
    assert not result.success and result.error == "bot_block" and "still" in result.reason
    assert (await session.goto(probe)).success


async def test_regional_block_on_an_error_status(session: PageSession) -> None:
    url = await _serve(session, "/geo", 451, GEO)
    browser, gate = supervised(session, "expired")
    with pytest.raises(BotBlocked, match="expired"):
        await browser.goto(url)
    assert gate.requests[0].details == {"kinds": ["geo_block"]}


async def test_an_article_about_access_denied_is_not_a_block(session: PageSession) -> None:
    url = await _serve(session, "/help", 200, ARTICLE)
    browser, gate = supervised(session)
    result = await browser.goto(url)
    assert result.success and gate.requests == []
    missing = await _serve(session, "/gone", 404, "<title>Not found</title><h1>Not found</h1>")
    result = await browser.goto(missing)
    assert result.error == "http_error" and gate.requests == []
