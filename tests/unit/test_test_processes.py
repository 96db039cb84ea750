"""A process a test starts in its own session dies when the test process is killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import psutil

# the "test run": starts a long-lived helper the way tests/support/worker_proc.py does,
# prints its pid, then waits to be killed
RUN = textwrap.dedent(
    """
    import subprocess, sys, time
    from tests.support.procs import die_with_parent
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"],
                             start_new_session=True, preexec_fn=die_with_parent)
    print(child.pid, flush=True)
    time.sleep(120)
    """
)


def test_a_helper_in_its_own_session_dies_with_a_killed_test_run() -> None:
    run = subprocess.Popen([sys.executable, "-c", RUN], stdout=subprocess.PIPE, text=True)
    assert run.stdout is not None
    child = int(run.stdout.readline())
    assert psutil.pid_exists(child)
    os.kill(run.pid, signal.SIGKILL)
    run.wait(10)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        try:
            if psutil.Process(child).status() == psutil.STATUS_ZOMBIE:
                break
        except psutil.NoSuchProcess:
            break
        time.sleep(0.05)
    else:
        os.kill(child, signal.SIGKILL)
        raise AssertionError("the helper outlived the killed run")
