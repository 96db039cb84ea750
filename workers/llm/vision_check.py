"""Refuse image settings the configured models cannot serve, before a run takes a browser.

Two settings send images to an LLM: `llm_worker_vision` (the Worker reads the Set-of-Mark
screenshot, seed 002) and `vision_enabled` (role "vision": [Vn] boxes and the `look` tool,
seed 003 §4.4). The model of each such role first gets one tiny image
(`workers.agent.context.vision_channel.probe`); an endpoint that rejects it, or a model that cannot
name its colour, is a configuration error whose message says what to change.
`llm_vision_probe=false` trusts the settings instead. A passed probe is remembered per process
for its (base URL, model), so only the first task of a worker pays the call.
"""

from __future__ import annotations

from typing import Literal

from app.settings import Settings
from workers.agent.context.vision_channel import probe
from workers.agent.errors import ConfigurationError
from workers.agent.protocols import LLM

ImageRole = Literal["worker", "vision"]
_PASSED: set[tuple[str, str]] = set()


def image_roles(settings: Settings) -> list[tuple[ImageRole, str]]:
    """(role, the setting that sends it images) for every role that will get images."""
    roles: list[tuple[ImageRole, str]] = []
    if settings.llm_worker_vision:
        roles.append(("worker", "WEBAGENT_LLM_WORKER_VISION=true"))
    if settings.vision_enabled:
        roles.append(("vision", "WEBAGENT_VISION_ENABLED=true"))
    return roles


async def require_vision(llm: LLM, settings: Settings) -> None:
    """Probe each image-receiving role once; raise ConfigurationError for a text-only model."""
    if not settings.llm_vision_probe:
        return
    for role, setting in image_roles(settings):
        model = settings.model_for(role)
        key = (settings.llm_base_url, model)
        if key in _PASSED:
            continue
        what = (
            f"{setting} needs a vision-capable {role} model, but {model!r} at "
            f"{settings.llm_base_url}"
        )
        try:
            await probe(llm, role, what)
        except ConfigurationError as exc:
            raise ConfigurationError(
                f"{exc}. Set WEBAGENT_LLM_MODEL_{role.upper()} to a model that reads images, "
                f"or turn {setting.split('=')[0]} off (WEBAGENT_LLM_VISION_PROBE=false skips "
                "this check)."
            ) from None
        _PASSED.add(key)
