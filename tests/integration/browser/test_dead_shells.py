"""Seed 000 §6.5: a 4xx/5xx or anti-bot page short-circuits the navigate with a dead end."""

from __future__ import annotations

import pytest

from workers.agent.context.eviction import cause_of
from workers.agent.protocols import Action
from workers.browser.session import PageSession

pytestmark = pytest.mark.browser


async def test_a_challenge_interstitial_is_a_bot_block(
    session: PageSession, probe_port: int
) -> None:
    url = f"http://127.0.0.1:{probe_port}/challenge.html"
    result = await session.execute(Action("navigate", {"url": url}))
    assert not result.success and result.error == "bot_block"
    assert cause_of(result.error) == "bot_block"
    assert "cloudflare_interstitial" in result.reason


async def test_an_http_error_page_is_a_network_dead_end(
    session: PageSession, probe_port: int
) -> None:
    url = f"http://127.0.0.1:{probe_port}/no-such-page.html"
    result = await session.execute(Action("navigate", {"url": url}))
    assert not result.success and result.error == "http_error"
    assert cause_of(result.error) == "network" and "404" in result.reason


async def test_an_ordinary_page_still_opens(session: PageSession, probe_port: int) -> None:
    result = await session.execute(
        Action("navigate", {"url": f"http://127.0.0.1:{probe_port}/probe.html"})
    )
    assert result.success
