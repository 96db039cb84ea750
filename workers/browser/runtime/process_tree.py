"""The browser's process tree as the pool watches it: its PID, its memory, whether it lives."""

from __future__ import annotations

import contextlib

import psutil
from playwright.async_api import Browser
from playwright.async_api import Error as PlaywrightError


def tree_rss_mb(pid: int | None) -> float:
    """Resident memory of a process and all its children (renderers, GPU, utilities), in MB."""
    if pid is None:
        return 0.0
    try:
        root = psutil.Process(pid)
        procs = [root, *root.children(recursive=True)]
    except psutil.Error:
        return 0.0
    total = 0
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            total += proc.memory_info().rss
    return total / (1024 * 1024)


def process_alive(pid: int) -> bool:
    """The process exists and is not a zombie (it may die before Playwright notices)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


async def browser_pid(browser: Browser) -> int | None:
    """PID of the browser process, asked over CDP (Playwright does not expose it)."""
    try:
        cdp = await browser.new_browser_cdp_session()
        info = await cdp.send("SystemInfo.getProcessInfo")
        await cdp.detach()
    except PlaywrightError:
        return None
    for proc in info.get("processInfo", []):
        if proc.get("type") == "browser":
            return int(proc["id"])
    return None
