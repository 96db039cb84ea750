"""Warm-context acquisition vs cold Chromium launch, measured on this machine.

    .venv/bin/python bench/runtime/pool_startup.py [--rounds 20]

Cold = launch Chromium + open a context + first page (what a pool-less worker pays per
task). Warm = BrowserPool.context() on an already running browser (what a task pays):
"steady" leaves each task running for --task-s (longer than the spare's delay + build,
as real tasks are), so the background spare context is ready; "back-to-back" ends each
task at once, so the spare is cancelled in its delay and a context is opened on demand.
Columns: time to a usable page, and to the page after its first set_content + evaluate.
All with the URL-policy routing installed, as in production.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time

from playwright.async_api import Page, async_playwright

from app.settings import Settings
from workers.browser.runtime.launch import launch_chromium
from workers.browser.runtime.pool import BrowserPool

PAGE = "<html><body><h1>hello</h1><script>document.title = 'hello'</script></body></html>"
Times = tuple[list[float], list[float]]  # (page ready, first content done), seconds


async def first_content(page: Page) -> None:
    await page.set_content(PAGE)
    await page.evaluate("document.title")


async def cold(settings: Settings, rounds: int) -> Times:
    ready, content = [], []
    async with async_playwright() as pw:
        for _ in range(rounds):
            started = time.perf_counter()
            browser = await launch_chromium(pw, settings)
            context = await browser.new_context()
            page = await context.new_page()
            ready.append(time.perf_counter() - started)
            await first_content(page)
            content.append(time.perf_counter() - started)
            await browser.close()
    return ready, content


async def warm(settings: Settings, rounds: int, task_s: float) -> Times:
    pool = BrowserPool(settings)
    await pool.start()
    ready, content = [], []
    try:
        await pool.spare_ready()
        for _ in range(rounds):
            started = time.perf_counter()
            async with pool.context() as page:
                ready.append(time.perf_counter() - started)
                await first_content(page)
                content.append(time.perf_counter() - started)
                await asyncio.sleep(task_s)  # the rest of the task
    finally:
        await pool.close()
    return ready, content


def _ms(times: list[float]) -> tuple[float, float]:
    ms = sorted(t * 1000 for t in times)
    return statistics.median(ms), ms[min(len(ms) - 1, int(len(ms) * 0.95))]


def _row(name: str, times: Times) -> str:
    (r50, r95), (c50, c95) = _ms(times[0]), _ms(times[1])
    return f"| {name} | {r50:.1f} | {r95:.1f} | {c50:.1f} | {c95:.1f} | {len(times[0])} |"


async def main(rounds: int, task_s: float) -> None:
    settings = Settings(allow_private_networks=False)
    cold_times = await cold(settings, rounds)
    steady = await warm(settings, rounds, task_s)
    back_to_back = await warm(settings, rounds, 0.0)
    print("| path | page ready p50 ms | p95 | + first content p50 ms | p95 | rounds |")
    print("|---|---|---|---|---|---|")
    print(_row("cold: launch + context + page", cold_times))
    print(_row(f"warm, steady ({task_s:g} s tasks): spare context", steady))
    print(_row("warm, back-to-back: context opened on demand", back_to_back))
    ratio = statistics.median(cold_times[1]) / statistics.median(steady[1])
    print(f"\nto first content, warm steady is {ratio:.1f}x faster than cold (median)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--task-s", type=float, default=1.5, help="steady-state task length")
    args = parser.parse_args()
    asyncio.run(main(args.rounds, args.task_s))
