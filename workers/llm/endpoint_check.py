"""The model endpoint checked before a run takes a browser (issue 37): a base URL that
refuses connections, an API key the endpoint refuses, an endpoint whose model list is no
OpenAI-compatible answer, or a base URL without its /v1 fails the task at once as
`configuration`, its detail naming the setting to fix, instead of after the start page
loaded and the first model call failed.

The check is the readiness probe's (app/llm_probe.py `blocking_problem`): one
`GET {base}/models`. A pass is remembered per process for `PASS_TTL_S` for its (base URL,
key), so a busy worker asks rarely; a failure is not remembered, so a fixed endpoint
serves the next task. A timeout, an error status of the list or a model the list lacks is
left to the run's own calls.
"""

from __future__ import annotations

import hashlib
import time

import httpx

from app.llm_probe import LLMProbe
from app.settings import Settings
from workers.agent.errors import ConfigurationError

PASS_TTL_S = 60.0
_PASSED: dict[tuple[str, str], float] = {}  # (base URL, key digest) -> when it passed


async def require_endpoint(
    settings: Settings, transport: httpx.AsyncBaseTransport | None = None
) -> None:
    """Raise ConfigurationError when the endpoint cannot serve any call of a run."""
    if not settings.llm_endpoint_check:
        return
    key = hashlib.sha256(settings.llm_api_key.get_secret_value().encode()).hexdigest()
    entry = (settings.llm_base_url, key)
    now = time.monotonic()
    if now - _PASSED.get(entry, float("-inf")) < PASS_TTL_S:
        return
    problem = await LLMProbe(settings, transport=transport).blocking_problem()
    if problem is not None:
        _PASSED.pop(entry, None)
        raise ConfigurationError(
            f"{problem}; checked before the browser opened (WEBAGENT_LLM_ENDPOINT_CHECK=false "
            "skips this check)"
        )
    _PASSED[entry] = now
