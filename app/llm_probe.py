"""Is the LLM endpoint usable? A cached `GET {WEBAGENT_LLM_BASE_URL}/models` that names the
setting to fix when it is not.

Used by /readyz (check "llm") and logged once at start-up by `webagent serve`. Failures say
which setting is wrong: the base URL (unreachable, not an OpenAI-compatible server), the API
key (401/403), or a model the server does not serve (WEBAGENT_LLM_MODEL and the per-role
WEBAGENT_LLM_MODEL_* overrides). A server without a model list (404) counts as reachable,
unless the base URL lacks its `/v1` and `{base}/v1/models` answers: then the message says to
add it (issue 23 §5).
Results are cached for `ttl_s` so readiness probes do not hammer a paid endpoint.
`blocking_problem()` is the part a worker checks before a run takes a browser
(workers/llm/endpoint_check.py, issue 37): only what stops every call.
"""

from __future__ import annotations

import asyncio
import logging
import re
import time
from dataclasses import dataclass
from typing import Any

import httpx

from app.settings import Settings

log = logging.getLogger(__name__)

ROLES = ("orchestrator", "planner", "worker", "vision", "summarizer")
PROBE_TIMEOUT_S = 2.5
VERSIONED = re.compile(r"/v\d+[a-z0-9]*(/|$)")  # /v1, /v1beta, /v4/ in the base URL


class LLMEndpointError(RuntimeError):
    """The endpoint cannot serve the agent; the message names the setting to change."""


@dataclass(frozen=True)
class Blocked:
    """A problem that stops every model call (not a timeout, not a model list)."""

    reason: str


def _not_openai(base: str) -> str:
    return f"LLM endpoint {base} is not an OpenAI-compatible API (WEBAGENT_LLM_BASE_URL)"


def _listed(response: httpx.Response) -> Any:
    """The /models answer's `data`; None when the body is no OpenAI model list."""
    try:
        body = response.json()
    except ValueError:
        return None
    return body.get("data", []) if isinstance(body, dict) else None


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
        found = await self._models()
        if isinstance(found, Blocked):
            return found.reason
        if isinstance(found, str):
            return found
        return None if found is None else self._missing_model(found)

    async def blocking_problem(self) -> str | None:
        """Only what stops every call of a run (uncached): the endpoint refuses connections or
        the key, answers its model list with something that is no OpenAI-compatible API, or
        the base URL lacks its /v1. A timeout, an error status of the list, or a model missing
        from it (some servers serve names they do not list) is left to the run's calls."""
        found = await self._models()
        if isinstance(found, Blocked):
            return found.reason
        if isinstance(found, httpx.Response) and _listed(found) is None:
            return _not_openai(self._base())
        return None

    def _base(self) -> str:
        return self.settings.llm_base_url.rstrip("/")

    async def _models(self) -> Blocked | str | httpx.Response | None:
        """The /models answer; a Blocked reason; a str for a problem chat calls may not share
        (a timeout, an error status); None for a server without a model list."""
        base = self._base()
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
                        return Blocked(
                            f"LLM endpoint {base} has no /models but {base}/v1/models answers: "
                            f"the base URL lacks /v1 (set WEBAGENT_LLM_BASE_URL={base}/v1)"
                        )
        except httpx.TimeoutException as exc:
            return f"LLM endpoint {base} unreachable (WEBAGENT_LLM_BASE_URL): {exc!r}"
        except httpx.HTTPError as exc:
            return Blocked(f"LLM endpoint {base} unreachable (WEBAGENT_LLM_BASE_URL): {exc!r}")
        if response.status_code in (401, 403):
            return Blocked(
                f"LLM endpoint {base} refused the API key with HTTP {response.status_code} "
                "(WEBAGENT_LLM_API_KEY)"
            )
        if response.status_code in (404, 405, 501):
            return None  # no model list on this server; chat may still work
        if response.is_error:  # the list failed; chat may not
            return (
                f"LLM endpoint {base} answered HTTP {response.status_code} (WEBAGENT_LLM_BASE_URL)"
            )
        return response

    def _missing_model(self, response: httpx.Response) -> str | None:
        base = self._base()
        listed = _listed(response)
        if listed is None:
            return _not_openai(base)
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
