"""A cold `webagent worker`: the supervisor process imports no browser, web or migration
stack before it spawns the workers, and a worker imports the job code while it starts."""

from __future__ import annotations

import json
import subprocess
import sys

NOT_IN_SUPERVISOR = (
    "playwright",
    "alembic",
    "uvicorn",
    "httpx",
    "fastapi",
    "workers.process.runtime",
    "workers.browser",
    "workers.jobs",
)
SUPERVISOR_PROBE = """
import json, sys
import workers.cli.main, workers.cli.commands.service, workers.process.supervisor
heads = json.loads(HEADS)
loaded = [m for m in sys.modules if any(m == h or m.startswith(h + ".") for h in heads)]
print(json.dumps(sorted(loaded)))
"""
WARM_PROBE = """
import sys
import workers.process.runtime
from app.settings import Settings
from workers.process import supervisor

class StartsNothing:
    def __init__(self, *args, **kwargs):
        self.jobs_at_start = None
    def start(self):
        self.jobs_at_start = "workers.jobs" in sys.modules

workers.process.runtime.WorkerRuntime = StartsNothing
rt = supervisor._warm_runtime(Settings(redis_url="redis://127.0.0.1:1/0"), "w-test")
print(isinstance(rt, StartsNothing), "workers.jobs" in sys.modules)
"""


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    return done.stdout.strip().splitlines()[-1]


def test_the_supervisor_process_imports_no_browser_web_or_migration_stack() -> None:
    probe = SUPERVISOR_PROBE.replace("HEADS", repr(json.dumps(NOT_IN_SUPERVISOR)))
    assert json.loads(_run(probe)) == []


def test_a_warm_worker_has_imported_the_job_code_before_its_first_job() -> None:
    assert _run(WARM_PROBE) == "True True"
