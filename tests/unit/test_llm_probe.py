"""The LLM readiness probe names the setting to fix, and caches its answer."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from app.llm_probe import LLMEndpointError, LLMProbe
from app.settings import Settings

BASE = "http://llm.test/v1"


def settings(**kw: Any) -> Settings:
    return Settings(llm_base_url=BASE, llm_api_key=SecretStr("k"), llm_model="m1", **kw)


def serving(status: int = 200, models: tuple[str, ...] = ("m1",), seen: list[Any] | None = None):
    def handler(request: httpx.Request) -> httpx.Response:
        if seen is not None:
            seen.append(request)
        body = {"object": "list", "data": [{"id": m, "object": "model"} for m in models]}
        return httpx.Response(status, json=body)

    return httpx.MockTransport(handler)


async def failure(probe: LLMProbe) -> str:
    with pytest.raises(LLMEndpointError) as caught:
        await probe()
    return str(caught.value)


async def test_answering_endpoint_is_ready_and_cached() -> None:
    seen: list[Any] = []
    probe = LLMProbe(settings(), transport=serving(seen=seen))
    assert await probe() is True and await probe() is True
    assert len(seen) == 1 and seen[0].url == f"{BASE}/models"
    assert seen[0].headers["authorization"] == "Bearer k"


async def test_unreachable_endpoint_names_the_base_url_setting() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    message = await failure(LLMProbe(settings(), transport=httpx.MockTransport(refuse)))
    assert message.startswith(f"LLM endpoint {BASE} unreachable (WEBAGENT_LLM_BASE_URL)")


async def test_rejected_key_and_missing_model_name_their_settings() -> None:
    assert "(WEBAGENT_LLM_API_KEY)" in await failure(LLMProbe(settings(), transport=serving(401)))
    probe = LLMProbe(settings(llm_model_planner="big"), transport=serving(models=("m1", "x")))
    message = await failure(probe)
    assert "'big' is not served" in message and "(WEBAGENT_LLM_MODEL_PLANNER)" in message
    assert "(WEBAGENT_LLM_BASE_URL)" in await failure(LLMProbe(settings(), transport=serving(502)))


async def test_server_without_model_list_counts_as_reachable() -> None:
    assert await LLMProbe(settings(), transport=serving(404))() is True


async def test_base_url_without_v1_fails_readiness_saying_so() -> None:
    """Issue 23 §5: a base URL missing /v1 (its /models a 404) passed /readyz."""

    def only_v1(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/models":
            return httpx.Response(200, json={"object": "list", "data": [{"id": "m1"}]})
        return httpx.Response(404, json={"detail": "Not Found"})

    probe = LLMProbe(
        Settings(llm_base_url="http://llm.test", llm_api_key=SecretStr("k"), llm_model="m1"),
        transport=httpx.MockTransport(only_v1),
    )
    message = await failure(probe)
    assert "http://llm.test/v1" in message and "WEBAGENT_LLM_BASE_URL" in message, message
    assert "/v1" in message


async def test_the_workers_check_blocks_only_what_stops_every_call() -> None:
    """blocking_problem (workers/llm/endpoint_check.py, issue 37): refused connections and
    keys and a page that is no model list block a run; a timeout, an error status of the
    list or a model the list lacks are left to the run's own calls."""

    def raising(exc: type[httpx.HTTPError]) -> httpx.MockTransport:
        def handler(request: httpx.Request) -> httpx.Response:
            raise exc("no", request=request)

        return httpx.MockTransport(handler)

    html = httpx.MockTransport(lambda request: httpx.Response(200, text="<html>shop</html>"))
    blocked = {
        "refused": LLMProbe(settings(), transport=raising(httpx.ConnectError)),
        "key": LLMProbe(settings(), transport=serving(401)),
        "html": LLMProbe(settings(), transport=html),
    }
    passing = {
        "timeout": LLMProbe(settings(), transport=raising(httpx.ReadTimeout)),
        "status": LLMProbe(settings(), transport=serving(502)),
        "unlisted": LLMProbe(settings(llm_model_planner="other"), transport=serving()),
        "no list": LLMProbe(settings(), transport=serving(405)),
    }
    reasons = {name: await probe.blocking_problem() for name, probe in blocked.items()}
    assert "unreachable (WEBAGENT_LLM_BASE_URL)" in str(reasons["refused"])
    assert "(WEBAGENT_LLM_API_KEY)" in str(reasons["key"])
    assert "not an OpenAI-compatible API" in str(reasons["html"])
    assert {
        name: await probe.blocking_problem() for name, probe in passing.items()
    } == dict.fromkeys(passing)
