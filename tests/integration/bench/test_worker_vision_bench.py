"""`webagent bench miniwob --worker-vision` against an endpoint whose model cannot read images:
refused before any episode, with a message naming the setting and the model."""

from __future__ import annotations

from typing import Any

import pytest
from typer.testing import CliRunner

from tests.support.llm_server import MODEL, Reply, ScriptedLLMServer, error_reply
from tests.support.miniwob_policies import miniwob_policy

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
    from workers.cli import _register_all, cli

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
