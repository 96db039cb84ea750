"""`webagent bench miniwob --worker-vision`: against an endpoint whose model cannot read images
it is refused before any episode, with a message naming the setting and the model; against a
vision model the probe passes and every Worker request carries the screenshot."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.integration.bench.conftest import bench_settings
from tests.support.llm_server import MODEL, Reply, ScriptedLLMServer, error_reply, text_reply
from tests.support.miniwob_policies import miniwob_policy
from workers.bench.miniwob import BenchOptions, run_benchmark
from workers.bench.report import Outcome

pytestmark = pytest.mark.browser


def has_image(request: dict[str, Any]) -> bool:
    return any(
        isinstance(m.get("content"), list)
        and any(p.get("type") == "image_url" for p in m["content"])
        for m in request.get("messages", [])
    )


def text_only_endpoint(request: dict[str, Any]) -> Reply:
    """What an OpenAI-compatible server with a text-only model answers to an image part."""
    if has_image(request):
        return error_reply(
            400, "Invalid content type. image_url is only supported by vision models"
        )
    return miniwob_policy(request)


def test_worker_vision_with_a_text_only_model_is_refused_before_any_episode(
    chromium_path: str, llm_server: ScriptedLLMServer
) -> None:
    from workers.cli.main import _register_all, cli

    llm_server.set_policy(text_only_endpoint)
    _register_all()
    args = [
        "bench", "miniwob", "--tasks", "click-button", "--llm-base-url", llm_server.base_url,
        "--model", MODEL, "--worker-vision",
    ]  # fmt: skip
    env = {"WEBAGENT_CHROMIUM_PATH": chromium_path, "WEBAGENT_LLM_MAX_RETRIES": "0"}
    result = CliRunner().invoke(cli, args, env=env)
    assert result.exit_code == 2, result.output
    out = " ".join(result.output.split())
    assert "WEBAGENT_LLM_WORKER_VISION=true needs a vision-capable worker model" in out
    assert f"'{MODEL}'" in out and "not vision-capable" in out
    assert len(llm_server.requests) == 1 and has_image(llm_server.requests[0])  # the probe only


def vision_endpoint(request: dict[str, Any]) -> Reply:
    """A vision model: names the probe's colour, plays the task from the page text."""
    if has_image(request) and not request.get("tools"):
        return text_reply("Red")
    return miniwob_policy(request)


async def test_bench_episode_with_worker_vision_sends_the_screenshot(
    chromium_path: str, llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    llm_server.set_policy(vision_endpoint)
    settings = bench_settings(chromium_path, llm_server).model_copy(
        update={"llm_worker_vision": True}
    )
    options = BenchOptions(tasks=("click-button",), seed=3)
    report = await run_benchmark(options, settings)
    (episode,) = report.episodes
    assert episode.outcome is Outcome.success, episode
    assert report.config.worker_vision is True
    probe, *rest = llm_server.requests
    assert has_image(probe) and not probe.get("tools")
    workers = [r for r in rest if r.get("tools")]
    assert workers and all(has_image(r) for r in workers)
