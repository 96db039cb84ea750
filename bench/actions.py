"""Median time per action of the hand (seed 000 §6.3-6.4) with and without humanization.

Drives PageSession.execute over the click gallery (tests/integration/browser/pages/
gallery_click): ref clicks on a live button and on 24 px calendar cells, a hover then a menu
click, a chevron row through the snapper, a canvas-drawn button by point. Each action's wall
time covers the whole tool call: probe, top-most check, cursor path (humanized only), CDP
press/release and the verification wait until the effect shows. Every action must succeed and
the page's own state is checked; the peer row is Playwright's bare ElementHandle.click() on
the same live button (no probe, no path, no verification), the floor for a click.

Run: .venv/bin/python bench/actions.py [--rounds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import http.server
import statistics
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.async_api import async_playwright  # noqa: E402

from app.settings import Settings  # noqa: E402
from bench.support import machine  # noqa: E402
from workers.agent.protocols import Action, ToolResult  # noqa: E402
from workers.browser.runtime.launch import launch_chromium  # noqa: E402
from workers.browser.session import PageSession  # noqa: E402

PAGES = ROOT / "tests" / "integration" / "browser" / "pages"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        return


def serve() -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_Quiet, directory=str(PAGES))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}/gallery_click"


def ref_of(s: PageSession, name: str) -> str:
    assert s.last is not None
    return next(n.ref for n in s.last.nodes if n.interactive and n.name.strip() == name)


Step = Callable[[PageSession], Awaitable[ToolResult]]


async def timed(s: PageSession, step: Step, times: list[float]) -> None:
    started = time.perf_counter()
    result = await step(s)
    times.append((time.perf_counter() - started) * 1000)
    assert result.success, result.reason


async def round_trip(s: PageSession, base: str, times: list[float]) -> None:
    """One pass over the gallery: 9 actions, each checked on the page's own state."""
    await s.goto(f"{base}/dead.html")
    await s.observe()
    for _ in range(3):
        await timed(
            s, lambda s: s.execute(Action("click", {"ref": ref_of(s, "Mark as read")})), times
        )
    assert await s.page.evaluate("window.clicks") == 3
    await s.goto(f"{base}/datepicker.html")
    await s.observe()
    for day in ("3", "15", "28"):
        await timed(s, lambda s, d=day: s.execute(Action("click", {"ref": ref_of(s, d)})), times)
    assert await s.page.evaluate("window.picked") == "2026-11-28"
    await s.goto(f"{base}/hover.html")
    await s.observe()
    await timed(s, lambda s: s.execute(Action("hover", {"ref": ref_of(s, "Products")})), times)
    await s.observe()
    await timed(s, lambda s: s.execute(Action("click", {"ref": ref_of(s, "Laptops")})), times)
    assert await s.page.evaluate("window.chosen") == "Laptops"
    await s.goto(f"{base}/canvas.html")
    await s.observe()
    box = await (await s.page.query_selector("#game")).bounding_box()  # type: ignore[union-attr]
    assert box is not None
    point = {"x": box["x"] + 100, "y": box["y"] + 65}
    await timed(s, lambda s: s.execute(Action("click_at", point)), times)
    assert await s.page.evaluate("window.canvasClicks") == 1


async def peer(page: object, base: str, rounds: int) -> list[float]:
    from playwright.async_api import Page

    assert isinstance(page, Page)
    await page.goto(f"{base}/dead.html")
    times = []
    for _ in range(rounds * 3):
        el = await page.query_selector("#live")
        assert el is not None
        started = time.perf_counter()
        await el.click()
        times.append((time.perf_counter() - started) * 1000)
    return times


async def main(rounds: int) -> None:
    server, base = serve()
    settings = Settings()
    results: dict[str, list[float]] = {}
    async with async_playwright() as pw:
        browser = await launch_chromium(pw, settings)
        for label, humane in (("humanized", True), ("plain", False)):
            times: list[float] = []
            for _ in range(rounds):
                context = await browser.new_context(viewport={"width": 1280, "height": 800})
                page = await context.new_page()
                cfg = settings.model_copy(update={"humanize": humane})
                s = await PageSession.open(page, cfg)
                await round_trip(s, base, times)
                await context.close()
            results[label] = times
        context = await browser.new_context(viewport={"width": 1280, "height": 800})
        results["peer"] = await peer(await context.new_page(), base, rounds)
        await context.close()
        await browser.close()
    server.shutdown()
    print(f"machine: {machine()}  date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    print("| actions (ms) | n | p50 | p90 | ratio p50 vs plain |")
    print("|---|---|---|---|---|")
    plain = statistics.median(results["plain"])
    names = {
        "humanized": "hand, WEBAGENT_HUMANIZE=true",
        "plain": "hand, WEBAGENT_HUMANIZE=false",
        "peer": "peer: bare Playwright click (no verification)",
    }
    for key in ("humanized", "plain", "peer"):
        values = sorted(results[key])
        p50 = statistics.median(values)
        p90 = values[min(len(values) - 1, int(0.9 * len(values)))]
        print(f"| {names[key]} | {len(values)} | {p50:.0f} | {p90:.0f} | {p50 / plain:.2f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    asyncio.run(main(parser.parse_args().rounds))
