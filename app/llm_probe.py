"""Is the LLM endpoint usable? A cached `GET {WEBAGENT_LLM_BASE_URL}/models` that names the
setting to fix when it is not.

Used by /readyz (check "llm") and logged once at start-up by `webagent serve`. Failures say
which setting is wrong: the base URL (unreachable, not an OpenAI-compatible server), the API
key (401/403), or a model the server does not serve (WEBAGENT_LLM_MODEL and the per-role
WEBAGENT_LLM_MODEL_* overrides). A server without a model list (404) counts as reachable,
unless the base URL lacks its `/v1` and `{base}/v1/models` answers: then the message says to
add it (issue 23 §5).
Results are cached for `ttl_s` so readiness probes do not hammer a paid endpoint.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from typing import Any

import httpx

from app.settings import Settings

log = logging.getLogger(__name__)

ROLES = ("orchestrator", "planner", "worker", "vision", "summarizer")
PROBE_TIMEOUT_S = 2.5
VERSIONED = re.compile(r"/v\d+[a-z0-9]*(/|$)")  # /v1, /v1beta, /v4/ in the base URL


class LLMEndpointError(RuntimeError):
    """The endpoint cannot serve the agent; the message names the setting to change."""


def _configured_models(settings: Settings) -> dict[str, str]:
    """model -> the setting that names it."""
    models = {settings.llm_model: "WEBAGENT_LLM_MODEL"}
    for role in ROLES:
        override = getattr(settings, f"llm_model_{role}", "")
        if override:
            models.setdefault(override, f"WEBAGENT_LLM_MODEL_{role.upper()}")
    return models


class LLMProbe:
    """Async callable for readiness checks: True, or raises LLMEndpointError."""

    def __init__(
        self,
        settings: Settings,
        *,
        ttl_s: float = 60.0,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.settings, self.ttl_s, self.transport = settings, ttl_s, transport
        self._cached: tuple[float, str | None] | None = None

    async def __call__(self) -> bool:
        now = time.monotonic()
        if self._cached is None or now - self._cached[0] > self.ttl_s:
            self._cached = (now, await self.problem())
        problem = self._cached[1]
        if problem is not None:
            raise LLMEndpointError(problem)
        return True

    async def problem(self) -> str | None:
        """What is wrong with the endpoint, or None (uncached)."""
        base = self.settings.llm_base_url.rstrip("/")
        key = self.settings.llm_api_key.get_secret_value()
        headers = {"Authorization": f"Bearer {key}"}
        try:
            async with httpx.AsyncClient(
                timeout=PROBE_TIMEOUT_S, transport=self.transport
            ) as client:
                response = await client.get(f"{base}/models", headers=headers)
                if response.status_code == 404 and not VERSIONED.search(base):
                    with_v1 = await client.get(f"{base}/v1/models", headers=headers)
                    if with_v1.is_success:
                        return (
                            f"LLM endpoint {base} has no /models but {base}/v1/models answers: "
                            f"the base URL lacks /v1 (set WEBAGENT_LLM_BASE_URL={base}/v1)"
                        )
        except httpx.HTTPError as exc:
            return f"LLM endpoint {base} unreachable (WEBAGENT_LLM_BASE_URL): {exc!r}"
        if response.status_code in (401, 403):
            return (
                f"LLM endpoint {base} refused the API key with HTTP {response.status_code} "
                "(WEBAGENT_LLM_API_KEY)"
            )
        if response.status_code == 404:
            return None  # no model list on this server; chat may still work
        if response.is_error:
            return (
                f"LLM endpoint {base} answered HTTP {response.status_code} (WEBAGENT_LLM_BASE_URL)"
            )
        return self._missing_model(base, response)

    def _missing_model(self, base: str, response: httpx.Response) -> str | None:
        try:
            listed: Any = response.json().get("data")
        except (ValueError, AttributeError):
            return f"LLM endpoint {base} is not an OpenAI-compatible API (WEBAGENT_LLM_BASE_URL)"
        if not isinstance(listed, list) or not listed:
            return None
        served = {str(m.get("id")) for m in listed if isinstance(m, dict)}
        for model, setting in _configured_models(self.settings).items():
            if model not in served:
                shown = ", ".join(sorted(served)[:5])
                return f"model {model!r} is not served by {base} (served: {shown}) ({setting})"
        return None


def install(app: Any, settings: Settings) -> None:
    """Register the `llm` readiness check and log the start-up probe (in the background, so
    a slow endpoint does not delay the API)."""
    probe = LLMProbe(settings)
    app.state.readiness_checks["llm"] = probe

    async def at_start() -> None:
        try:
            await probe()
        except LLMEndpointError as exc:
            log.warning("%s", exc)
        else:
            log.info("LLM endpoint %s answers", settings.llm_base_url)

    app.state.llm_probe_task = asyncio.create_task(at_start(), name="webagent-llm-probe")
