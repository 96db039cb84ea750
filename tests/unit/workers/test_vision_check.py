"""Image settings are refused for models that cannot read images, with a message that says
which setting and which model, and what to change."""

from __future__ import annotations

import pytest

from app.settings import Settings
from workers.agent.errors import ConfigurationError, LLMRejected
from workers.agent.protocols import LLMReply
from workers.agent.testing import FakeLLM
from workers.llm.vision_check import image_roles, require_vision


def _answer(text: str) -> LLMReply:
    return LLMReply(text, (), 10, 1, "m", 0.01, "stop")


def _settings(url: str, **kw: object) -> Settings:
    return Settings(llm_base_url=url, llm_model="text-only-model", **kw)  # type: ignore[arg-type]


async def test_worker_vision_with_a_text_only_model_is_refused() -> None:
    llm = FakeLLM([LLMRejected("LLM endpoint rejected the request: image_url is not supported")])
    settings = _settings("http://refuse.test/v1", llm_worker_vision=True)
    with pytest.raises(ConfigurationError) as info:
        await require_vision(llm, settings)
    message = str(info.value)
    assert "WEBAGENT_LLM_WORKER_VISION=true needs a vision-capable worker model" in message
    assert "'text-only-model' at http://refuse.test/v1 is not vision-capable" in message
    assert "WEBAGENT_LLM_MODEL_WORKER" in message and "WEBAGENT_LLM_VISION_PROBE=false" in message
    assert llm.roles == ["worker"]


async def test_a_model_that_sees_the_image_passes_once_per_process() -> None:
    llm = FakeLLM([_answer("red")])
    settings = _settings("http://sees.test/v1", llm_worker_vision=True)
    await require_vision(llm, settings)
    await require_vision(llm, settings)  # remembered: no second probe
    assert llm.roles == ["worker"]


async def test_vision_role_is_probed_with_its_own_model() -> None:
    llm = FakeLLM([_answer("It is blue.")])
    settings = _settings("http://vision.test/v1", vision_enabled=True, llm_model_vision="vlm")
    with pytest.raises(ConfigurationError, match=r"'vlm' at http://vision\.test/v1 does not read"):
        await require_vision(llm, settings)
    assert llm.roles == ["vision"]


async def test_no_probe_without_image_settings_or_when_trusted() -> None:
    llm = FakeLLM([])
    assert image_roles(Settings()) == []
    await require_vision(llm, Settings())
    await require_vision(
        llm, _settings("http://trust.test/v1", llm_worker_vision=True, llm_vision_probe=False)
    )
    assert llm.roles == []
