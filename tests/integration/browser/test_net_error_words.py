"""A navigation the network refuses is told in words, its raw cause kept for operators
(issue 23 §5: a refused connection showed `net::ERR_SOCKS_CONNECTION_FAILED` plus
Playwright's call log to the user)."""

from __future__ import annotations

import socket

from workers.agent.loop.step_events import action_event
from workers.agent.protocols import Action
from workers.browser.session import PageSession


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


async def test_refused_connection_reads_as_words_with_the_cause_in_the_event(
    session: PageSession,
) -> None:
    url = f"http://127.0.0.1:{closed_port()}/"
    result = await session.goto(url)
    assert not result.success
    assert "net::" not in result.reason and "Call log" not in result.reason, result.reason
    assert "ERR_" not in result.reason, result.reason
    assert url in result.reason and "refused the connection" in result.reason
    event = action_event(0, Action("navigate", {"url": url}), result)
    assert "ERR_CONNECTION_REFUSED" in event["cause"], event
    assert "Call log" not in event["cause"]
