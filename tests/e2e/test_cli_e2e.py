"""`webagent run` as a user runs it: a subprocess, against a server or fully embedded."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.e2e.conftest import SHOP, Service
from tests.support.llm_server import ScriptedLLMServer
from tests.support.sites import TestSite, cheapest
from tests.support.worker_proc import ROOT, WEBAGENT

pytestmark = [pytest.mark.browser, pytest.mark.services]

CLI_TIMEOUT_S = 120


def run_cli(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("WEBAGENT_")}
    return subprocess.run(
        [WEBAGENT, "run", *args],
        env={**clean, **env},
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=CLI_TIMEOUT_S,
        check=False,
    )


def expected_answer() -> str:
    return f"{cheapest().name} at {cheapest().price}"


@pytest.mark.parametrize("service", ["embedded"], indirect=True)
def test_run_against_server_prints_answer_and_usage_as_json(
    service: Service, e2e_site: TestSite, tmp_path: Path
) -> None:
    done = run_cli(
        [SHOP, "--url", e2e_site.url("/shop"), "--server", service.base_url, "--json"],
        {"WEBAGENT_DATA_DIR": str(tmp_path)},  # must stay unused: the server runs the task
    )
    assert done.returncode == 0, done.stdout + done.stderr
    task = json.loads(done.stdout)
    assert task["status"] == "succeeded"
    grounding = task["result"].pop("grounding")
    assert task["result"] == {"answer": expected_answer(), "success": True, "data": None}
    assert grounding["verdict"] == "verified"  # the price was on the page the run saw
    # one Worker call per step, plus the Planner's verification of the Worker's `done`
    assert task["usage"]["steps"] >= 2
    assert task["usage"]["llm_calls"] == task["usage"]["steps"] + 1
    assert task["usage"]["input_tokens"] > 0 and task["usage"]["output_tokens"] > 0
    assert not (tmp_path / "webagent.db").exists()
    with service.client() as client:  # the run is in the server's history
        assert client.get(f"/v1/tasks/{task['id']}").json()["status"] == "succeeded"


def test_run_embedded_without_server_completes(
    e2e_llm: ScriptedLLMServer, e2e_site: TestSite, chromium_path: str, tmp_path: Path
) -> None:
    done = run_cli(
        [SHOP, "--url", e2e_site.url("/shop")],
        {
            "WEBAGENT_DATA_DIR": str(tmp_path),
            "WEBAGENT_LLM_BASE_URL": e2e_llm.base_url,
            "WEBAGENT_LLM_API_KEY": "e2e-key",
            "WEBAGENT_CHROMIUM_PATH": chromium_path,
            "WEBAGENT_ALLOW_PRIVATE_NETWORKS": "true",
            "COLUMNS": "200",
        },
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "succeeded" in done.stdout and expected_answer() in done.stdout
    for key in ("steps", "llm_calls", "input_tokens", "output_tokens"):
        assert key in done.stdout
    assert (tmp_path / "webagent.db").exists()  # the embedded SQLite store was used
