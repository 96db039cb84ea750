"""Time to the first observation in a fresh process (issue 22).

Each run is a fresh interpreter: it starts Chromium (BrowserPool.start), opens the MiniWoB++
`click-button` page in a context, starts the episode and observes it (mode compact). Printed
per variant, medians of N runs: the browser start, the first observation after the browser
is up (PageSession.observe wall time) and the process's wall time up to that observation.

- `lazy`: the o200k vocabulary loads on the first count, inside the first observation
  (what every process did before issue 22);
- `warm`: tokens.warm_in_background() at process start, as the worker runtime, the bench
  harness and `webagent observe` now do: the load overlaps the browser start.

Run: .venv/bin/python bench/first_observation.py [N]
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHILD = """
import asyncio, json, sys, time
started = time.perf_counter()
sys.path.insert(0, sys.argv[2])
from workers.browser.observe import tokens
if sys.argv[1] == "warm":
    tokens.warm_in_background()
from app.settings import Settings
from workers.bench.miniwob import bench_settings
from workers.bench.server import MiniWobServer
from workers.browser.observe.miniwob_page import MiniWobPage
from workers.browser.runtime.pool import BrowserPool
from workers.browser.session import PageSession

async def main():
    settings = bench_settings(Settings(), 1)
    pool = BrowserPool(settings, spare_delay_s=3600.0)
    with MiniWobServer() as server:
        t0 = time.perf_counter()
        await pool.start()
        up = time.perf_counter()
        async with pool.context() as page:
            session = await PageSession.open(page, settings)
            mw = MiniWobPage(page)
            await mw.open(server.task_url("click-button"))
            await mw.start(0, keep_timer=False)
            t1 = time.perf_counter()
            await session.observe("compact")
            t2 = time.perf_counter()
            await session.close()
        await pool.close()
    print(json.dumps({"browser_s": up - t0, "observe_ms": (t2 - t1) * 1000,
                      "wall_s": t2 - started}))

asyncio.run(main())
"""


def run(variant: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, variant, str(ROOT)],
        capture_output=True, text=True, check=True, timeout=300,
    )  # fmt: skip
    return dict(json.loads(out.stdout.strip().splitlines()[-1]))


def main() -> None:
    from bench.support import machine

    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {machine()}")
    print(f"# load average before: {os.getloadavg()[0]:.1f}; medians of {runs} fresh processes")
    print("| variant | browser start s | first observation ms | process wall to it s |")
    print("|---|---|---|---|")
    for variant in ("lazy", "warm"):
        rows = [run(variant) for _ in range(runs)]
        med = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
        print(
            f"| {variant} | {med['browser_s']:.2f} | {med['observe_ms']:.0f} "
            f"| {med['wall_s']:.2f} |"
        )
    print(f"# load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
