"""`webagent observe` in fresh processes (issue 22): wall, CPU and the command's phases.

Each run is one `webagent observe PAGE --json` on a six-element local HTML file: wall time
of the process, its CPU time (user + sys of the command and every child it reaped: the
Playwright driver, Chromium), `observe_ms` and, where the command reports them, its phases
(`timings_ms`). Several commands (e.g. an older checkout's console script) are run in turn,
run by run, so they share the machine's load; medians of N runs, load average around them.

Run: .venv/bin/python bench/observe_cli.py [N] [--webagent LABEL=PATH ...]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PAGE = """<!doctype html><html><head><title>Six</title></head><body>
<h1>Order form</h1>
<form><label>Name <input name="name"></label>
<label>Email <input type="email" name="email"></label>
<select name="size"><option>S</option><option>M</option></select>
<label><input type="checkbox" name="gift"> Gift wrap</label>
<a href="/help">Help</a>
<button type="submit">Send</button></form></body></html>
"""
PHASES = ("imports", "browser_start", "context", "session_open", "goto", "observe", "close")


def run(webagent: str, page: Path) -> dict[str, float]:
    """One fresh `webagent observe`: wall s, CPU s and the phases it reports."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    out = subprocess.run(
        [webagent, "observe", str(page), "--json"],
        capture_output=True, text=True, check=True, timeout=600,
    )  # fmt: skip
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    figures = json.loads(out.stdout[out.stdout.index("{\n") :])
    row = {
        "wall_s": wall,
        "cpu_s": after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime,
        "observe": figures["observe_ms"],
    }
    row.update({k: v for k, v in (figures.get("timings_ms") or {}).items() if k in PHASES})
    return row


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("runs", nargs="?", type=int, default=5)
    parser.add_argument(
        "--webagent",
        action="append",
        default=[],
        help="LABEL=PATH of a webagent console script (default: this checkout's)",
    )
    args = parser.parse_args()
    commands = dict(item.split("=", 1) for item in args.webagent) or {
        "this checkout": str(Path(sys.executable).with_name("webagent"))
    }
    with tempfile.TemporaryDirectory() as folder:
        page = Path(folder) / "six.html"
        page.write_text(PAGE)
        load_before = os.getloadavg()
        rows: dict[str, list[dict[str, float]]] = {label: [] for label in commands}
        for _ in range(args.runs):
            for label, webagent in commands.items():
                rows[label].append(run(webagent, page))
        load_after = os.getloadavg()
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {os.cpu_count()} cores")
    print(f"# load average (1, 5, 15 min) before {_load(load_before)}, after {_load(load_after)}")
    print(f"# medians of {args.runs} fresh processes; phases in ms (imports overlap the start)")
    keys = ["wall_s", "cpu_s", *PHASES]
    print("| command | " + " | ".join(keys) + " |")
    print("|---" * (len(keys) + 1) + "|")
    for label, runs in rows.items():
        cells = [_median(runs, key) for key in keys]
        print(f"| {label} | " + " | ".join(cells) + " |")


def _median(runs: list[dict[str, float]], key: str) -> str:
    values = [r[key] for r in runs if key in r]
    if not values:
        return "-"
    value = statistics.median(values)
    return f"{value:.2f}" if key.endswith("_s") else f"{value:.0f}"


def _load(load: tuple[float, float, float]) -> str:
    return "/".join(f"{x:.1f}" for x in load)


if __name__ == "__main__":
    main()
