"""What the observation-fidelity tests share (test_fidelity_wave3/5/5b): a fixture that opens
a page of pages/ in a fresh 1280x800 context with its PageSession, and readers of the
observation's text lines and refs."""

from __future__ import annotations

import re
from collections.abc import AsyncIterator, Awaitable, Callable

import pytest
from playwright.async_api import Browser, Page

from app.settings import Settings
from workers.browser.session import PageSession

Opener = Callable[[str], Awaitable[tuple[PageSession, Page]]]


@pytest.fixture
async def open_fidelity_page(
    chromium_browser: Browser, chromium_path: str, probe_port: int
) -> AsyncIterator[Opener]:
    """`await open(path)`: pages/<path>.html opened and observed through a fresh session."""
    contexts = []

    async def _open(name: str) -> tuple[PageSession, Page]:
        context = await chromium_browser.new_context(viewport={"width": 1280, "height": 800})
        contexts.append(context)
        settings = Settings(chromium_path=chromium_path, snapshot_max_tokens=1500, humanize=False)
        page = await context.new_page()
        session = await PageSession.open(page, settings)
        result = await session.goto(f"http://127.0.0.1:{probe_port}/{name}.html")
        assert result.success, result.reason
        return session, page

    yield _open
    for context in contexts:
        await context.close()


def lines(text: str, needle: str) -> list[str]:
    """The observation's lines holding `needle`."""
    return [ln for ln in text.splitlines() if needle in ln]


def line(text: str, needle: str) -> str:
    """The first line holding `needle` (the test fails with the whole text when none does)."""
    found = lines(text, needle)
    assert found, f"{needle!r} not in:\n{text}"
    return found[0]


def ref(text_line: str) -> str:
    """The ref a line starts with (`[3:7] button ...` -> `3:7`)."""
    found = re.match(r"\[(\d+:\d+)\]", text_line)
    assert found, text_line
    return found.group(1)
