"""Soak checks for bench/load.py: leaks, browser recycling and /metrics while tasks run.

`Watch.tick` is called on every poll of the task table. It records the footprint (open fds
and RSS of the worker processes, the standby and their Chromium) once 10% of the tasks are
done, every Chromium main process a serving worker launched (a recycle starts a new one),
and the worker's /metrics scrape time at 10% and at the end. `verdict` compares them with
the issue's bounds: fds within +-5, RSS within +-10% (10% mark vs end), one browser launch
per WEBAGENT_BROWSER_RECYCLE_AFTER_TASKS tasks per worker, every scrape under 500 ms.
"""

from __future__ import annotations

import math
import time
from typing import Any

import httpx
import psutil

STANDBY_NAME = "wa-standby"  # workers.supervisor.STANDBY_NAME (not imported: no worker deps)
FDS_TOLERANCE = 5
RSS_TOLERANCE = 0.10
SCRAPE_LIMIT_MS = 500.0


def tree(pid: int) -> list[psutil.Process]:
    root = psutil.Process(pid)
    return [root, *root.children(recursive=True)]


def footprint(supervisor: int) -> dict[str, float]:
    """Open fds and RSS (MB) of the worker processes and their Chromium, not the supervisor."""
    fds = rss = 0
    for proc in tree(supervisor)[1:]:
        try:
            fds += proc.num_fds()
            rss += proc.memory_info().rss
        except psutil.Error:
            continue
    return {"fds": fds, "rss_mb": round(rss / 2**20, 1)}


def serving_browsers(supervisor: int) -> set[tuple[int, float]]:
    """(pid, start time) of each Chromium main process under a worker that is not the standby
    (a Chromium whose parent is not Chromium: a child between fork and exec looks like one)."""
    found: set[tuple[int, float]] = set()
    for worker in psutil.Process(supervisor).children():
        try:
            if worker.name() == STANDBY_NAME:
                continue
            for proc in worker.children(recursive=True):
                parent = proc.parent()
                if parent is None or "chrom" in parent.name() or "chrom" not in proc.name():
                    continue
                if not any(a.startswith("--type=") for a in proc.cmdline()):
                    found.add((proc.pid, proc.create_time()))
        except psutil.Error:
            continue
    return found


def scrape_ms(port: int) -> float:
    t0 = time.perf_counter()
    httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=10).raise_for_status()
    return round((time.perf_counter() - t0) * 1000, 1)


class Watch:
    """Samples one `webagent worker` tree while bench/load.py's tasks run."""

    def __init__(self, supervisor: int, metrics_port: int) -> None:
        self.supervisor = supervisor
        self.port = metrics_port
        self.early: dict[str, float] = {}
        self.late: dict[str, float] = {}
        self.browsers: set[tuple[int, float]] = set()
        self.scrapes: list[float] = []

    def tick(self, done: int, total: int) -> None:
        self.browsers |= serving_browsers(self.supervisor)
        if not self.early and done >= total * 0.1:
            self.early = footprint(self.supervisor)
            self.scrapes.append(scrape_ms(self.port))

    def finish(self) -> None:
        self.browsers |= serving_browsers(self.supervisor)
        self.late = footprint(self.supervisor)
        self.scrapes.append(scrape_ms(self.port))

    def verdict(self, tasks: int, workers: int, recycle_after: int) -> dict[str, Any]:
        fds = self.late["fds"] - self.early["fds"]
        rss = (self.late["rss_mb"] - self.early["rss_mb"]) / self.early["rss_mb"]
        expected = workers * math.ceil(tasks / workers / recycle_after)
        return {
            "footprint_after_10pct": self.early,
            "footprint_end": self.late,
            "fds_delta": fds,
            "fds_ok": abs(fds) <= FDS_TOLERANCE,
            "rss_delta_pct": round(rss * 100, 1),
            "rss_ok": abs(rss) <= RSS_TOLERANCE,
            "browser_launches": len(self.browsers),
            "browser_launches_by_policy": expected,
            "browser_recycle_after_tasks": recycle_after,
            "recycle_ok": len(self.browsers) >= expected,
            "metrics_scrape_ms": self.scrapes,
            "scrape_ok": max(self.scrapes) < SCRAPE_LIMIT_MS,
        }
