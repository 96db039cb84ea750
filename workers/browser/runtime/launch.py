"""Launch Debian's Chromium through Playwright with the flags that work headless here."""

from __future__ import annotations

import os
from pathlib import Path

from playwright.async_api import Browser, Playwright, async_playwright

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


COMPILE_CACHE = "node-compile-cache"


def use_node_compile_cache(data_dir: str) -> None:
    """Let Playwright's Node driver keep its compiled 3.6 MB bundle under `data_dir`
    (Node checks each entry against the source, so a new Playwright compiles afresh);
    a NODE_COMPILE_CACHE the operator set is kept. Read at every driver start after this."""
    os.environ.setdefault("NODE_COMPILE_CACHE", str(Path(data_dir).resolve() / COMPILE_CACHE))


async def start_playwright(settings: Settings) -> Playwright:
    """Playwright's driver, started with its compile cache (0.62 -> 0.50 s of CPU)."""
    use_node_compile_cache(settings.data_dir)
    return await async_playwright().start()


async def launch_chromium(playwright: Playwright, settings: Settings) -> Browser:
    """One warm browser; callers open a fresh isolated context per task."""
    return await playwright.chromium.launch(
        executable_path=settings.chromium_path,
        headless=True,
        args=list(CHROMIUM_ARGS),
    )
