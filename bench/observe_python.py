"""The Python side of one observation on saved real pages (issue 35): `extraction_ms - js_ms`.

One Chromium, one task-like page session (`PageSession.open`, as a worker's), each of the
first N saved pages of /work/shared/data/realpages served from 127.0.0.1 (other hosts fail at
once), opened and observed once in compact mode. Per page: `extraction_ms` (snapshot.capture
wall time), `js_ms` (the walker's own time in the page), `first_look_ms` (the wait for a new
document's load and quiet DOM window, inside extraction_ms) and the Python side: extraction
minus the page script minus that wait. With --profile FILE, cProfile of the observe() calls is
written to FILE and its top functions (own time) are printed.

Run: .venv/bin/python bench/observe_python.py [--pages 20] [--profile out.prof]
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench" / "perception"))

import harness  # noqa: E402
from playwright.async_api import async_playwright  # noqa: E402

from app.settings import Settings  # noqa: E402
from bench.support import machine, pct  # noqa: E402
from workers.browser.observe import tokens  # noqa: E402
from workers.browser.runtime.launch import CHROMIUM_ARGS  # noqa: E402
from workers.browser.session import PageSession  # noqa: E402


async def observe_pages(
    origin: str, names: list[str], chromium: str, prof: cProfile.Profile | None
) -> list[dict[str, Any]]:
    rows = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(
            executable_path=chromium,
            args=[*CHROMIUM_ARGS, "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1"],
        )
        for name in names:
            context = await browser.new_context(viewport={"width": 1280, "height": 800})
            page = await context.new_page()
            session = await PageSession.open(page, Settings(allow_private_networks=True))
            await session.goto(f"{origin}/realpages/{name}")
            if prof is not None:
                prof.enable()
            obs = await session.observe("compact")
            if prof is not None:
                prof.disable()
            s = obs.stats
            python = float(s["extraction_ms"]) - float(s["js_ms"])
            rows.append(
                {
                    "page": name,
                    "tokens": obs.tokens,
                    "extraction_ms": s["extraction_ms"],
                    "js_ms": s["js_ms"],
                    "first_look_ms": s.get("first_look_ms", 0.0),
                    "python_ms": round(python, 1),
                    "python_no_wait_ms": round(python - float(s.get("first_look_ms", 0.0)), 1),
                    "observe_ms": s["observe_ms"],
                }
            )
            await session.close()
            await context.close()
        await browser.close()
    return rows


def _median(rows: list[dict[str, Any]], key: str) -> dict[str, float]:
    values = [float(r[key]) for r in rows]
    return {"p50": round(statistics.median(values), 1), "p90": round(pct(values, 90), 1)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=20)
    parser.add_argument("--profile", default="", help="write cProfile stats of observe() here")
    parser.add_argument("--rows", action="store_true", help="print every page's row")
    parser.add_argument("--chromium", default=os.environ.get("WEBAGENT_CHROMIUM_PATH", ""))
    args = parser.parse_args()
    names = sorted(p.name for p in harness.REALPAGES.glob("*.html"))[: args.pages]
    tokens.warm_in_background()
    prof = cProfile.Profile() if args.profile else None
    load_before = os.getloadavg()[0]
    with harness.serve() as origin:
        rows = asyncio.run(observe_pages(origin, names, args.chromium or "/usr/bin/chromium", prof))
    out = {
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": machine(),
        "load": [round(load_before, 1), round(os.getloadavg()[0], 1)],
        "pages": len(rows),
        **{k: _median(rows, k) for k in ("extraction_ms", "js_ms", "first_look_ms")},
        "python_ms": _median(rows, "python_ms"),
        "python_no_wait_ms": _median(rows, "python_no_wait_ms"),
        "tokens": _median(rows, "tokens"),
    }
    if args.rows:
        out["rows"] = rows
    print(json.dumps(out, indent=2))
    if prof is not None:
        prof.dump_stats(args.profile)
        text = io.StringIO()
        pstats.Stats(prof, stream=text).sort_stats("tottime").print_stats(25)
        print(text.getvalue())


if __name__ == "__main__":
    main()
