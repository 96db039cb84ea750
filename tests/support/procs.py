"""Processes a test starts never outlive the test run, even when the run is killed.

Long-lived helpers (`webagent worker`, `webagent serve`, the CLI) run in their own process
group so teardown can signal their children; that also took them out of reach of a killed
pytest, and a `webagent worker` survived a killed run. `die_with_parent` (a `preexec_fn`)
asks Linux to send the child SIGTERM when the process that started it dies (PR_SET_PDEATHSIG):
the supervisor then stops its workers as on any SIGTERM.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal

PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """In the child, before exec: SIGTERM when the parent dies (no-op off Linux)."""
    libc_name = ctypes.util.find_library("c")
    if libc_name is None:
        return
    libc = ctypes.CDLL(libc_name, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    if os.getppid() == 1:  # the parent died before prctl took effect
        os.kill(os.getpid(), signal.SIGTERM)
