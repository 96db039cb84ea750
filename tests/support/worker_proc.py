"""A real `webagent worker` supervisor process for tests: its environment, start and stop.

Used by the production e2e deployment, the supervisor/shutdown integration tests and the
worker-kill chaos test, so each starts the process (and waits for its /metrics) the same way.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import psutil
import pytest

from bench.support import free_port
from tests.support.procs import die_with_parent
from workers.process.supervisor import STANDBY_NAME

WEBAGENT = str(Path(sys.executable).with_name("webagent"))
ROOT = Path(__file__).resolve().parents[2]


def wait_for(predicate: Callable[[], object], timeout: float, what: str) -> None:
    """Poll `predicate` until it is truthy; AssertionError after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def metrics_up(port: int) -> bool:
    try:
        return httpx.get(f"http://127.0.0.1:{port}/metrics", timeout=1).status_code == 200
    except httpx.HTTPError:
        return False


def worker_env(
    *, database_url: str, redis_url: str, llm_base_url: str, chromium_path: str, **extra: object
) -> dict[str, str]:
    """The worker's WEBAGENT_* variables (`extra` names more Settings fields: data_dir=...)."""
    values: dict[str, object] = {
        "database_url": database_url,
        "redis_url": redis_url,
        "llm_base_url": llm_base_url,
        "llm_api_key": "e2e-key",
        "llm_max_retries": 0,
        "chromium_path": chromium_path,
        "allow_private_networks": "true",
        # plain input: worker_settings() in tests/integration/workers/test_jobs.py says why
        "humanize": "false",
        # the suite's artifact folder (tests/conftest.py): the API in the test process reads
        # what the worker process writes there
        "artifact_dir": os.environ.get("WEBAGENT_ARTIFACT_DIR", ""),
        **extra,
    }
    return {f"WEBAGENT_{k.upper()}": str(v) for k, v in values.items()}


@dataclass
class Worker:
    """A running supervisor: its process, its metrics port, its log file."""

    proc: subprocess.Popen[bytes]
    port: int
    log: Path

    @property
    def metrics_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/metrics"

    def log_tail(self) -> str:
        return self.log.read_text(errors="replace")[-4000:]

    def pids(self) -> set[int]:
        """Its worker processes: spawned (not the multiprocessing resource tracker), not the
        idle standby (WEBAGENT_WORKER_STANDBY; it names itself until promoted)."""
        kids = psutil.Process(self.proc.pid).children()
        spawned = [k for k in kids if "spawn_main" in " ".join(k.cmdline())]
        return {k.pid for k in spawned if process_name(k) != STANDBY_NAME}

    def sole_pid(self, timeout: float = 60) -> int:
        """The one worker process, once a just-spawned standby has named itself (until then
        it looks like a worker: same command line, default name)."""
        deadline = time.monotonic() + timeout
        while len(pids := self.pids()) != 1:
            assert time.monotonic() < deadline, f"worker processes: {pids}"
            time.sleep(0.1)
        return pids.pop()

    def wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not metrics_up(self.port):
            if self.proc.poll() is not None:
                pytest.fail(f"worker exited with {self.proc.returncode}:\n{self.log_tail()}")
            if time.monotonic() > deadline:
                pytest.fail(f"worker metrics never answered:\n{self.log_tail()}")
            time.sleep(0.1)


def process_name(process: psutil.Process) -> str:
    try:
        return process.name()
    except psutil.Error:
        return ""


@contextmanager
def worker_process(
    env: dict[str, str],
    log: Path,
    *,
    grace: float = 5,
    ready_timeout: float = 120,
    cwd: Path = ROOT,
) -> Iterator[Worker]:
    """`webagent worker --concurrency 1` until the block ends, ready (its /metrics answers).

    Its environment: this process's without its WEBAGENT_* variables, plus `env`; its
    working folder `cwd` (a relative WEBAGENT_DATA_DIR is inside it).

    Its own process group, so teardown reaches the spawned children; SIGTERM first (the
    supervisor stops its workers warmly), SIGKILL to the group if that takes over 20 s.
    """
    port = free_port()
    clean = {k: v for k, v in os.environ.items() if not k.startswith("WEBAGENT_")}
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [WEBAGENT, "worker", "--concurrency", "1", "--grace", str(grace)],
            env={**clean, **env, "WEBAGENT_WORKER_METRICS_PORT": str(port)},
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=die_with_parent,  # never outlives a killed test run
        )
    worker = Worker(proc, port, log)
    try:
        worker.wait_ready(ready_timeout)
        yield worker
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)
