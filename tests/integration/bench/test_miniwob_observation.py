"""`--observation-mode` through the MiniWoB++ harness: the webagent loop observes in the chosen
mode (perception's LLM calls counted per episode), the naive baseline always sees "full"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.integration.bench.conftest import bench_settings
from tests.support.llm_server import MODEL, ScriptedLLMServer
from tests.support.miniwob_policies import miniwob_policy
from tests.support.summarizer import is_summarizer_request, with_summarizer
from workers.bench.miniwob import BenchOptions, run_benchmark
from workers.bench.report import Outcome

pytestmark = pytest.mark.browser


def _observed_modes(events: Path) -> set[str]:
    records = [json.loads(line) for line in events.read_text().splitlines()]
    return {r["data"]["stats"]["mode"] for r in records if r["type"] == "observation"}


async def test_pipeline_mode_episode_counts_the_summarizer(
    chromium_path: str, llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm_server.set_policy(with_summarizer(miniwob_policy))
    events = tmp_path / "events.jsonl"
    options = BenchOptions(
        tasks=("click-button",), seed=3, observation_mode="pipeline", events_path=str(events)
    )
    report = await run_benchmark(options, bench_settings(chromium_path, llm_server))
    (episode,) = report.episodes
    assert episode.outcome is Outcome.success, episode
    summarizer = [r for r in llm_server.requests if is_summarizer_request(r)]
    assert summarizer and episode.llm_calls == len(llm_server.requests)
    assert episode.input_tokens == sum(llm_server.prompt_tokens())
    assert _observed_modes(events) == {"pipeline"}


async def test_naive_observes_full_whatever_the_mode(
    chromium_path: str, llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm_server.set_policy(miniwob_policy)
    events = tmp_path / "events.jsonl"
    options = BenchOptions(
        tasks=("click-link",), seed=3, agent="naive", observation_mode="pagemem",
        events_path=str(events),
    )  # fmt: skip
    report = await run_benchmark(options, bench_settings(chromium_path, llm_server))
    assert report.episodes[0].outcome is Outcome.success, report.episodes[0]
    assert _observed_modes(events) == {"full"}


def test_cli_flag_selects_the_mode_and_refuses_vision_without_opt_in(
    chromium_path: str, llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    from workers.cli.main import _register_all, cli

    llm_server.set_policy(miniwob_policy)
    _register_all()
    events = tmp_path / "events.jsonl"
    base = [
        "bench", "miniwob", "--tasks", "enter-text", "--llm-base-url", llm_server.base_url,
        "--model", MODEL, "--events", str(events),
    ]  # fmt: skip
    env = {"WEBAGENT_CHROMIUM_PATH": chromium_path, "WEBAGENT_VISION_ENABLED": "false"}
    result = CliRunner().invoke(cli, [*base, "--observation-mode", "pagemem"], env=env)
    assert result.exit_code == 0, result.output
    assert "observation=pagemem" in result.output and _observed_modes(events) == {"pagemem"}

    refused = CliRunner().invoke(cli, [*base, "--observation-mode", "vision"], env=env)
    assert refused.exit_code == 2 and "vision_enabled" in refused.output
