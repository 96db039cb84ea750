"""Warm-context acquisition vs cold Chromium launch, measured on this machine.

    .venv/bin/python bench/runtime/pool_startup.py [--rounds 20]

Cold = launch Chromium + open a context + first page (what a pool-less worker pays per
task). Warm = BrowserPool.context() on an already running browser (what a task pays):
"spare ready" waits for the background spare context first (tasks last seconds, so it is
ready in steady state); "back-to-back" acquires again at once (the spare is still being
prepared). All with the URL-policy routing installed, as in production.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from playwright.async_api import async_playwright

from app.settings import Settings
from workers.browser.launch import launch_chromium
from workers.browser.pool import BrowserPool

PAGE = "<html><body><h1>hello</h1></body></html>"


async def cold(settings: Settings, rounds: int) -> list[float]:
    times = []
    async with async_playwright() as pw:
        for _ in range(rounds):
            started = time.perf_counter()
            browser = await launch_chromium(pw, settings)
            context = await browser.new_context()
            page = await context.new_page()
            await page.set_content(PAGE)
            times.append(time.perf_counter() - started)
            await browser.close()
    return times


async def warm(settings: Settings, rounds: int, *, spare_ready: bool) -> list[float]:
    pool = BrowserPool(settings)
    await pool.start()
    times = []
    try:
        for _ in range(rounds):
            if spare_ready:
                await pool.spare_ready()
            started = time.perf_counter()
            async with pool.context() as page:
                await page.set_content(PAGE)
                times.append(time.perf_counter() - started)
    finally:
        await pool.close()
    return times


def _row(name: str, times: list[float]) -> str:
    ms = sorted(t * 1000 for t in times)
    p95 = ms[min(len(ms) - 1, int(len(ms) * 0.95))]
    return f"| {name} | {statistics.median(ms):.0f} | {p95:.0f} | {len(ms)} |"


async def main(rounds: int) -> None:
    settings = Settings(allow_private_networks=False)
    cold_times = await cold(settings, rounds)
    ready_times = await warm(settings, rounds, spare_ready=True)
    busy_times = await warm(settings, rounds, spare_ready=False)
    print("| path | median ms | p95 ms | rounds |")
    print("|---|---|---|---|")
    print(_row("cold: launch + context + page", cold_times))
    print(_row("warm, spare ready: pool.context() + page", ready_times))
    print(_row("warm, back-to-back: pool.context() + page", busy_times))
    ratio = statistics.median(cold_times) / statistics.median(ready_times)
    print(f"\nwarm (spare ready) is {ratio:.0f}x faster than cold (median)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    asyncio.run(main(parser.parse_args().rounds))
