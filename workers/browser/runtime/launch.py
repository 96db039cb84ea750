"""Launch Debian's Chromium through Playwright with the flags that work headless here."""

from __future__ import annotations

from playwright.async_api import Browser, Playwright

from app.settings import Settings

CHROMIUM_ARGS: tuple[str, ...] = (
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
)


async def launch_chromium(playwright: Playwright, settings: Settings) -> Browser:
    """One warm browser; callers open a fresh isolated context per task."""
    return await playwright.chromium.launch(
        executable_path=settings.chromium_path,
        headless=True,
        args=list(CHROMIUM_ARGS),
    )
