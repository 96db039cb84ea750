"""Soak checks for bench/load.py: leaks, browser recycling and /metrics while tasks run.

`Watch.tick` is called on every poll of the task table. Once 10% of the tasks are done, and
again at the end, it takes SAMPLES samples SAMPLE_GAP_S apart; each sample is the footprint
of the worker tree by process kind plus one /metrics scrape (time and size). It also records
every Chromium main process a serving worker launched (a recycle starts a new one).

Process kinds: `worker` (the serving worker's Python process), `tracker` (multiprocessing's
resource tracker), `driver` (Playwright's node driver under the worker), `standby` (the warm
standby's Python process; its driver and Chromium are `standby:<kind>`), and the serving
Chromium's `browser` (main), `renderer`, `zygote`, `gpu`, `utility`, `other`. Renderers and
utility processes come and go with pages, so the fd sum over the tree moves by tens with one
renderer more or fewer and says nothing about a leak.

The fd rule (median of the 10% samples vs median of the end samples): the worker, tracker,
driver and standby Python processes within +-FDS_TOLERANCE on their fd count; each Chromium
kind (the standby's as `standby:<kind>`) may not grow by more than FDS_TOLERANCE fds per
process (a recycled browser is a new process: a fall is not a leak); a kind absent at one mark
is listed, not compared; the Chromium process count may not grow by more than PROCS_TOLERANCE
(pages or contexts left open keep their renderers alive). RSS: the Python and driver processes
together within +-10%, none of their kinds grown by more than 10% (the tree's total is
reported). Browser launches: at least one per
WEBAGENT_BROWSER_RECYCLE_AFTER_TASKS tasks per worker. /metrics: every scrape under 500 ms.
"""

from __future__ import annotations

import math
import statistics
import time
from collections.abc import Iterable
from typing import Any

import httpx
import psutil

STANDBY_NAME = (
    "wa-standby"  # workers.process.supervisor.STANDBY_NAME (not imported: no worker deps)
)
FDS_TOLERANCE = 5
PROCS_TOLERANCE = 3
RSS_TOLERANCE = 0.10
SCRAPE_LIMIT_MS = 500.0
SAMPLES, SAMPLE_GAP_S = 5, 0.5
CHROMIUM_KINDS = ("browser", "renderer", "zygote", "gpu", "utility", "other")  # fds per process

Footprint = dict[str, dict[str, float]]  # kind -> {"procs", "fds", "rss_mb"}


def is_chromium(proc: psutil.Process) -> bool:
    name = proc.name()
    return "chrom" in name or "headless_shell" in name


def chromium_kind(proc: psutil.Process) -> str:
    for arg in proc.cmdline():
        if arg.startswith("--type="):
            kind = arg.removeprefix("--type=").removesuffix("-process")
            return kind if kind in CHROMIUM_KINDS else "other"
    return "browser"


def root_kind(proc: psutil.Process) -> str:
    """A supervisor child that is not the standby: multiprocessing's resource tracker or a
    worker (a standby still importing, before it names itself, also looks like a worker)."""
    return "tracker" if any("resource_tracker" in a for a in proc.cmdline()) else "worker"


def classify(supervisor: int) -> Iterable[tuple[str, psutil.Process]]:
    """(kind, process) of every process under the supervisor, the supervisor excluded."""
    for top in psutil.Process(supervisor).children():
        try:
            standby = top.name() == STANDBY_NAME
            yield ("standby" if standby else root_kind(top)), top
            prefix = "standby:" if standby else ""
            for proc in top.children(recursive=True):
                kind = chromium_kind(proc) if is_chromium(proc) else "driver"
                yield prefix + kind, proc
        except psutil.Error:
            continue


def footprint(supervisor: int) -> Footprint:
    """Processes, open fds and RSS (MB) per kind of the worker tree."""
    out: Footprint = {}
    for kind, proc in classify(supervisor):
        try:
            fds, rss = proc.num_fds(), proc.memory_info().rss
        except psutil.Error:
            continue
        row = out.setdefault(kind, {"procs": 0, "fds": 0, "rss_mb": 0.0})
        row["procs"] += 1
        row["fds"] += fds
        row["rss_mb"] += rss / 2**20
    return out


def settle(samples: list[Footprint]) -> Footprint:
    """The median of each kind's procs, fds and RSS over the samples (absent: 0)."""
    kinds = sorted({k for s in samples for k in s})
    zero = {"procs": 0, "fds": 0, "rss_mb": 0.0}
    return {
        k: {
            f: round(statistics.median(s.get(k, zero)[f] for s in samples), 1)
            for f in ("procs", "fds", "rss_mb")
        }
        for k in kinds
    }


def per_process(kind: str) -> bool:
    """Chromium kinds (the standby's too) are compared per process, the others in total."""
    return kind.rsplit(":", 1)[-1] in CHROMIUM_KINDS


def fds_deltas(early: Footprint, late: Footprint) -> dict[str, float]:
    """Per kind: fd count delta (Python, driver) or fds-per-process delta (Chromium kinds)."""
    out: dict[str, float] = {}
    for kind in sorted(set(early) & set(late)):
        a, b = early[kind], late[kind]
        if not (a["procs"] and b["procs"]):
            continue  # absent at one mark (a standby still warming, no gpu process)
        if per_process(kind):
            out[kind] = round(b["fds"] / b["procs"] - a["fds"] / a["procs"], 1)
        else:
            out[kind] = b["fds"] - a["fds"]
    return out


def fds_verdict(early: Footprint, late: Footprint) -> dict[str, Any]:
    """The fd rule of the module docstring on two settled footprints."""
    deltas = fds_deltas(early, late)

    def chromium_procs(fp: Footprint) -> float:
        return sum(r["procs"] for k, r in fp.items() if per_process(k))

    grown = chromium_procs(late) - chromium_procs(early)
    total = sum(r["fds"] for r in late.values()) - sum(r["fds"] for r in early.values())
    compared = set(deltas)
    return {
        "fds_delta_by_kind": deltas,
        "fds_not_compared": sorted((set(early) | set(late)) - compared),
        "fds_delta_tree_sum": total,
        "chromium_procs_delta": grown,
        "fds_ok": all(fds_within(k, d) for k, d in deltas.items()) and grown <= PROCS_TOLERANCE,
    }


def fds_within(kind: str, delta: float) -> bool:
    """Two-sided for Python and the driver; Chromium per process may only not grow (each
    recycle starts a new browser: a fall is a younger process, e.g. without a gpu child)."""
    return delta <= FDS_TOLERANCE if per_process(kind) else abs(delta) <= FDS_TOLERANCE


def rss_total(fp: Footprint) -> float:
    return sum(r["rss_mb"] for r in fp.values())


def rss_verdict(early: Footprint, late: Footprint) -> dict[str, Any]:
    """The Python processes and drivers together within +-10% RSS, and none of their kinds
    grown by more than 10% (a kind that shrank, e.g. the idle standby's driver, is no leak);
    the tree's total is reported (it falls by hundreds of MB when the renderers of the last
    pages have exited)."""
    kinds = [
        k
        for k in sorted(set(early) & set(late))
        if not per_process(k) and early[k]["rss_mb"] and late[k]["procs"]
    ]
    before = sum(early[k]["rss_mb"] for k in kinds)
    after = sum(late[k]["rss_mb"] for k in kinds)
    deltas = {
        k: round((late[k]["rss_mb"] - early[k]["rss_mb"]) / early[k]["rss_mb"] * 100, 1)
        for k in kinds
    }
    total = round((after - before) / before * 100, 1) if before else 0.0
    return {
        "rss_mb_tree": [round(rss_total(early), 1), round(rss_total(late), 1)],
        "rss_mb_python_and_driver": [round(before, 1), round(after, 1)],
        "rss_delta_pct": total,
        "rss_delta_pct_by_kind": deltas,
        "rss_ok": abs(total) <= RSS_TOLERANCE * 100
        and all(d <= RSS_TOLERANCE * 100 for d in deltas.values()),
    }


def scrape(client: httpx.Client, port: int) -> tuple[float, int]:
    """(ms, bytes) of one worker /metrics scrape. The client is made once, as a scraper's is:
    `httpx.get` builds a client and its TLS context per call, which alone took 100-700 ms
    at load 7 (the 636 ms "scrape" of the 11-26 17:30 soak was mostly that)."""
    t0 = time.perf_counter()
    response = client.get(f"http://127.0.0.1:{port}/metrics")
    response.raise_for_status()
    return round((time.perf_counter() - t0) * 1000, 1), len(response.content)


def serving_browsers(supervisor: int) -> set[tuple[int, float]]:
    """(pid, start time) of each Chromium main process under a worker that is not the standby
    (a Chromium whose parent is not Chromium: a child between fork and exec looks like one)."""
    found: set[tuple[int, float]] = set()
    for kind, proc in classify(supervisor):
        try:
            parent = proc.parent()
            if kind != "browser" or parent is None or is_chromium(parent):
                continue
            found.add((proc.pid, proc.create_time()))
        except psutil.Error:
            continue
    return found


class Watch:
    """Samples one `webagent worker` tree while bench/load.py's tasks run."""

    def __init__(self, supervisor: int, metrics_port: int) -> None:
        self.supervisor = supervisor
        self.port = metrics_port
        self.marks: dict[str, dict[str, Any]] = {}
        self.browsers: set[tuple[int, float]] = set()
        self.client = httpx.Client(timeout=10)

    def sample(self, mark: str) -> None:
        """SAMPLES footprints and scrapes SAMPLE_GAP_S apart, kept under `mark`."""
        prints, scrapes = [], []
        for i in range(SAMPLES):
            if i:
                time.sleep(SAMPLE_GAP_S)
            self.browsers |= serving_browsers(self.supervisor)
            prints.append(footprint(self.supervisor))
            scrapes.append(scrape(self.client, self.port))
        self.marks[mark] = {
            "footprint": settle(prints),
            "procs_per_sample": [sum(int(r["procs"]) for r in p.values()) for p in prints],
            "scrape_ms": [ms for ms, _ in scrapes],
            "scrape_bytes": [size for _, size in scrapes],
        }

    def tick(self, done: int, total: int) -> None:
        self.browsers |= serving_browsers(self.supervisor)
        if "10pct" not in self.marks and done >= total * 0.1:
            self.sample("10pct")

    def finish(self) -> None:
        self.sample("end")
        self.client.close()

    def verdict(self, tasks: int, workers: int, recycle_after: int) -> dict[str, Any]:
        early, late = self.marks["10pct"]["footprint"], self.marks["end"]["footprint"]
        expected = workers * math.ceil(tasks / workers / recycle_after)
        scrapes = self.marks["10pct"]["scrape_ms"] + self.marks["end"]["scrape_ms"]
        return {
            "marks": self.marks,
            **fds_verdict(early, late),
            **rss_verdict(early, late),
            "browser_launches": len(self.browsers),
            "browser_launches_by_policy": expected,
            "browser_recycle_after_tasks": recycle_after,
            "recycle_ok": len(self.browsers) >= expected,
            "scrape_ok": max(scrapes) < SCRAPE_LIMIT_MS,
        }
