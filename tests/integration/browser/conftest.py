"""Probe pages on a local threaded HTTP server (port 0); one Chromium per test session
(`chromium_browser` in tests/conftest.py) with a fresh isolated context per test."""

from __future__ import annotations

import functools
import http.server
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, Page

from app.settings import Settings
from tests.integration.browser.fidelity_support import open_fidelity_page  # noqa: F401
from workers.browser.session import PageSession

PAGES = Path(__file__).parent / "pages"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture(scope="session")
def probe_port() -> Iterator[int]:
    handler = functools.partial(_Quiet, directory=str(PAGES))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.fixture
def settings(chromium_path: str) -> Settings:
    """Plain input (humanize off): these tests check what a tool does to a page; the humanized
    hand has its own tests, which turn it on where they need it (test_humanize.py, the click
    gallery's motion tests, test_type_at.py)."""
    return Settings(chromium_path=chromium_path, snapshot_max_tokens=1500, humanize=False)


@pytest.fixture
async def page(chromium_browser: Browser) -> AsyncIterator[Page]:
    context = await chromium_browser.new_context(viewport={"width": 1280, "height": 800})
    try:
        yield await context.new_page()
    finally:
        await context.close()


@pytest.fixture
async def session(page: Page, settings: Settings) -> PageSession:
    return await PageSession.open(page, settings)
