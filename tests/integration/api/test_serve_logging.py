"""`webagent serve` with uvicorn's own logging config: one clean access line per request.

The redacting record factory (app/logredact.py) once flattened every record's `args` to
None; uvicorn's access formatter unpacks five args, so each request printed a "--- Logging
error ---" traceback and lost its access line. This runs the real server process.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from app.auth import new_key
from bench.support import free_port
from tests.support.procs import die_with_parent
from tests.support.worker_proc import ROOT, WEBAGENT, wait_for


@pytest.fixture
def served(tmp_path: Path, chromium_path: str) -> Iterator[tuple[str, Path]]:
    port = free_port()
    log = tmp_path / "serve.log"
    clean = {k: v for k, v in os.environ.items() if not k.startswith("WEBAGENT_")}
    env = {
        **clean,
        "WEBAGENT_DATA_DIR": str(tmp_path / "data"),
        "WEBAGENT_CHROMIUM_PATH": chromium_path,
        "WEBAGENT_LLM_BASE_URL": "http://127.0.0.1:1/v1",
    }
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [WEBAGENT, "serve", "--port", str(port)],
            env=env,
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=die_with_parent,  # never outlives a killed test run
        )
    base = f"http://127.0.0.1:{port}"

    def up() -> bool:
        if proc.poll() is not None:
            pytest.fail(f"serve exited {proc.returncode}:\n{log.read_text()[-3000:]}")
        try:
            return httpx.get(f"{base}/healthz", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    try:
        wait_for(up, 120, "webagent serve")
        yield base, log
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


def test_each_request_logs_one_access_line_and_no_logging_error(
    served: tuple[str, Path],
) -> None:
    base, log = served
    key = new_key()
    before = log.read_text()
    paths = ["/healthz", "/v1/tasks", f"/v1/tasks?note={key}", "/no-such-page"]
    for path in paths:
        httpx.get(base + path, timeout=10)
    wait_for(lambda: "/no-such-page" in log.read_text(), 10, "the last access line")
    text = log.read_text()[len(before) :]
    assert "Logging error" not in text and "Traceback" not in text, text[-3000:]
    access = [line for line in text.splitlines() if '"GET /' in line]
    assert len(access) == len(paths), text
    assert any("/no-such-page" in line and "404" in line for line in access), access
    assert key not in text
    assert "wa_***" in text
