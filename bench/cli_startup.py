"""Wall time of `webagent --help` (lazy commands) against importing every command module
(what the CLI did before commands loaded on first use). Median of N runs, each a fresh
interpreter. Usage: python bench/cli_startup.py [N]"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time

HELP = "import sys; from workers.cli.main import main; sys.argv = ['webagent', '--help']; main()"
EAGER = (
    "from workers.cli.commands import service, tasks, profiles, keys, observe, bench; "
    "import workers.cli.main"
)


def median_s(argv: list[str], runs: int) -> tuple[float, float]:
    """(median wall seconds, median CPU seconds user+sys) of `runs` fresh runs."""
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        subprocess.run(argv, check=True, capture_output=True)
        walls.append(time.perf_counter() - started)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    lazy = median_s([sys.executable, "-c", HELP], runs)
    eager = median_s([sys.executable, "-c", EAGER], runs)
    load = os.getloadavg()[0]
    print(f"load average {load:.1f}; medians of {runs} fresh interpreters (wall / CPU)")
    print(f"webagent --help:                {lazy[0]:.3f} s / {lazy[1]:.3f} s")
    print(f"importing every command module: {eager[0]:.3f} s / {eager[1]:.3f} s")


if __name__ == "__main__":
    main()
