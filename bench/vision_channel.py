"""Cost of the Worker's image channel (seed 002 dual channel) per fresh observation.

For each page: the p50 time of a fresh `observe("compact")` text-only and with
WEBAGENT_LLM_WORKER_VISION (snapshot + Set-of-Mark overlay + content crop + CDP-scaled JPEG),
the JPEG size, the tags drawn, the cropped region and scale, and the image's OpenAI
high-detail token cost (85 + 170 per 512 px tile after the documented resize).
Pages: the local test pages plus started MiniWoB++ episodes (seed 3).

Run: .venv/bin/python bench/vision_channel.py [--repeats 15]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from playwright.async_api import Page, async_playwright  # noqa: E402

from app.settings import Settings  # noqa: E402
from bench.support import machine  # noqa: E402
from workers.bench.server import MiniWobServer  # noqa: E402
from workers.browser.observe.miniwob_page import MiniWobPage  # noqa: E402
from workers.browser.runtime.launch import launch_chromium  # noqa: E402
from workers.browser.session import PageSession  # noqa: E402

PAGES = ROOT / "tests" / "integration" / "browser" / "pages"
LOCAL = ("chart.html", "probe.html", "long.html")
MINIWOB = ("click-color", "click-shades", "count-shape", "visual-addition", "social-media")


def image_tokens(width: int, height: int) -> int:
    """OpenAI high detail: fit 2048x2048, shortest side 768, 170 per 512 px tile + 85."""
    scale = min(1.0, 2048 / max(width, height))
    w, h = width * scale, height * scale
    scale = min(1.0, 768 / min(w, h))
    w, h = w * scale, h * scale
    return 85 + 170 * math.ceil(w / 512) * math.ceil(h / 512)


async def measure(page: Page, open_page: Any, vision: bool, repeats: int) -> dict[str, Any]:
    session = await PageSession.open(page, Settings(llm_worker_vision=vision))
    await open_page(session)
    times: list[float] = []
    stats: dict[str, Any] = {}
    image = b""
    for _ in range(repeats):
        session.invalidate()  # a fresh snapshot each time, as after a page change
        started = time.perf_counter()
        obs = await session.observe("compact")
        times.append((time.perf_counter() - started) * 1000)
        stats, image = dict(obs.stats.get("som") or {}), obs.image or b""
    out: dict[str, Any] = {"p50_ms": statistics.median(times)}
    if vision and stats and image:
        _, _, w, h = stats["region"]
        width, height = round(w * stats["scale"]), round(h * stats["scale"])
        out.update(kb=len(image) / 1024, tags=stats["tags"], size=(width, height))
        out["tokens"] = image_tokens(width, height)
    return out


async def main(repeats: int) -> None:
    rows: list[tuple[str, dict[str, Any], dict[str, Any]]] = []
    with MiniWobServer() as server:
        async with async_playwright() as pw:
            browser = await launch_chromium(pw, Settings(allow_private_networks=True))
            targets: list[tuple[str, Any]] = []
            for name in LOCAL:

                async def local(s: PageSession, name: str = name) -> None:
                    await s.goto((PAGES / name).as_uri())

                targets.append((name, local))
            for task in MINIWOB:

                async def episode(s: PageSession, task: str = task) -> None:
                    mw = MiniWobPage(s.page)
                    await mw.open(server.task_url(task))
                    await mw.start(3, keep_timer=False)

                targets.append((f"miniwob {task}", episode))
            for label, opener in targets:
                figures = []
                for vision in (False, True):
                    page = await browser.new_page(viewport={"width": 1280, "height": 800})
                    figures.append(await measure(page, opener, vision, repeats))
                    await page.close()
                rows.append((label, figures[0], figures[1]))
            await browser.close()
    print(f"machine: {machine()}; p50 of {repeats} fresh observations per page")
    print("| page | text-only observe p50 | with image p50 | JPEG | tags | image px | tokens |")
    print("|---|---|---|---|---|---|---|")
    for label, off, on in rows:
        w, h = on["size"]
        print(
            f"| {label} | {off['p50_ms']:.0f} ms | {on['p50_ms']:.0f} ms | {on['kb']:.1f} KB "
            f"| {on['tags']} | {w}x{h} | {on['tokens']} |"
        )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    asyncio.run(main(parser.parse_args().repeats))
