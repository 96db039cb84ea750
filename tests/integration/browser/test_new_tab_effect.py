"""Issue 31 item 4: a click that opens a new tab is an effect, and the model is told of the
tab, also when the tab shows up after the click's effect check (a page that answers slowly,
a handler that opens the tab a moment later). Before, such a click was judged `no_change`
(its handler ran, the page looked the same) or `no_effect`, and the tab was adopted
silently before the next action."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import http.server
import threading
import time
from collections.abc import Iterator

import pytest

from tests.integration.browser.conftest import PAGES
from tests.integration.browser.test_gallery import ref
from workers.agent.protocols import Action
from workers.browser.session import PageSession

pytestmark = pytest.mark.browser
SLOW_S = 1.0  # the new tab's page answers after the click's effect check ended


class _SlowPages(http.server.SimpleHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path.startswith("/slow/"):
            time.sleep(SLOW_S)
            body = b"<!doctype html><title>Report</title><h1>Report</h1><p>Total 88</p>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(body)  # the test's context may have closed the tab meanwhile
            return
        super().do_GET()

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture(scope="module")
def slow_port() -> Iterator[int]:
    handler = functools.partial(_SlowPages, directory=str(PAGES))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


async def _click(s: PageSession, port: int, name: str) -> tuple[object, object]:
    assert (await s.goto(f"http://127.0.0.1:{port}/tabs/opener.html")).success
    await s.observe()
    first = s.page
    result = await s.execute(Action("click", {"ref": ref(s, name)}))
    return first, result


@pytest.mark.parametrize(
    ("name", "path", "text"),
    [
        ("Open slow report", "/slow/report.html", "Total 88"),
        ("Open receipt", "/tabs/receipt.html", "RC-4417"),
    ],
)
async def test_a_click_that_opens_a_late_tab_is_an_effect_and_names_it(
    session: PageSession, slow_port: int, name: str, path: str, text: str
) -> None:
    first, result = await _click(session, slow_port, name)
    assert result.success, f"{result.error}: {result.reason}"  # type: ignore[attr-defined]
    assert "new tab" in result.reason and path in result.reason, result.reason  # type: ignore[attr-defined]
    assert result.page_changed  # type: ignore[attr-defined]
    assert session.page is not first and session.page.url.endswith(path)
    assert len(first.context.pages) == 2  # one press: no second click tier opened a 2nd tab
    observation = await session.observe()
    assert text in observation.text


async def test_a_tab_opened_after_the_action_was_judged_is_named_at_the_next_look(
    session: PageSession, slow_port: int
) -> None:
    first, _ = await _click(session, slow_port, "Open archive")
    while len(first.context.pages) < 2:  # the tab opens 2.5 s after the click
        await asyncio.sleep(0.05)
    observation = await session.observe()
    assert observation.text.startswith("[a new tab opened after your last action: "), observation
    assert "receipt.html?archive" in observation.text.splitlines()[0]
    assert "RC-4417" in observation.text and session.page is not first


async def test_a_download_a_script_starts_after_the_click_is_named_at_the_next_look(
    session: PageSession, slow_port: int
) -> None:
    """The relay run of the challenge pages: the export's click was judged before its page
    script made the file, so read_download() said "no downloads yet" (a wasted step)."""
    assert (await session.goto(f"http://127.0.0.1:{slow_port}/tabs/late_download.html")).success
    await session.observe()
    clicked = await session.execute(Action("click", {"ref": ref(session, "Export notes")}))
    assert clicked.success and "download" not in clicked.reason, clicked.reason
    while session.downloads_started < 1:  # the page makes the file 0.8 s after the click
        await asyncio.sleep(0.05)
    first = (await session.observe()).text.splitlines()[0]
    assert first == (
        "[a download started after your last action: Team's notes.txt; read it with read_download]"
    ), first
    assert not (await session.observe()).text.startswith("[a download")  # named once
