"""The model's navigate tool opens web pages only: never local files or browser internals."""

from __future__ import annotations

import pytest

from workers.agent.protocols import Action
from workers.browser.session import PageSession

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "FILE:///etc/passwd",
        "view-source:file:///etc/passwd",
        "chrome://version",
        "javascript:document.title='x'",
        "data:text/html,<p>hi</p>",
    ],
)
async def test_navigate_refuses_non_web_schemes(session: PageSession, url: str) -> None:
    result = await session.execute(Action("navigate", {"url": url}))
    assert not result.success and result.error == "navigation_blocked"
    assert session.url == "about:blank"
    assert "root:" not in await session.page.content()


async def test_navigate_still_opens_web_pages(session: PageSession, probe_port: int) -> None:
    result = await session.execute(
        Action("navigate", {"url": f"http://127.0.0.1:{probe_port}/probe.html"})
    )
    assert result.success and session.url.endswith("/probe.html")
