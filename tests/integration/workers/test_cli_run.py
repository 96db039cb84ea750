"""`webagent run` without --server: embedded service in-process, live SSE display, JSON result."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.settings import get_settings
from tests.integration.workers.test_jobs import read_home_policy
from tests.support.llm_server import ScriptedLLMServer
from tests.support.sites import TestSite
from workers.cli.main import _register_all, cli

pytestmark = pytest.mark.browser


@pytest.fixture
def fresh_settings() -> Iterator[None]:
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


def test_run_embedded_prints_progress_and_result(
    fresh_settings: None,
    chromium_path: str,
    llm_server: ScriptedLLMServer,
    test_site: TestSite,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    llm_server.set_policy(read_home_policy)
    for key, value in {
        "WEBAGENT_DATA_DIR": str(tmp_path),
        "WEBAGENT_LLM_BASE_URL": llm_server.base_url,
        "WEBAGENT_CHROMIUM_PATH": chromium_path,
        "WEBAGENT_ALLOW_PRIVATE_NETWORKS": "true",
        "WEBAGENT_DATABASE_URL": "",
        "WEBAGENT_REDIS_URL": "",
    }.items():
        monkeypatch.setenv(key, value)
    _register_all()
    runner = CliRunner()

    shown = runner.invoke(cli, ["run", "What is on the home page?", "--url", test_site.url("/")])
    assert shown.exit_code == 0, shown.output
    assert "navigate(" in shown.output and "succeeded" in shown.output
    assert "the site has an Outdoor shop" in shown.output

    quiet = runner.invoke(
        cli, ["run", "again", "--url", test_site.url("/"), "--max-steps", "2", "--json"]
    )
    assert quiet.exit_code == 0, quiet.output
    task = json.loads(quiet.stdout)  # stderr may carry a test server's broken-pipe noise
    assert task["status"] == "succeeded" and task["max_steps"] == 2
    assert task["result"]["answer"] == "the site has an Outdoor shop"
    assert (tmp_path / "webagent.db").exists()  # both runs used the embedded SQLite store
