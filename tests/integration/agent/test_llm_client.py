"""OpenAILLM against the scripted server: real openai client, real HTTP, real wire format."""

from __future__ import annotations

import json
import traceback

import pytest

from app import metrics
from app.settings import Settings
from tests.support.llm_server import (
    Reply,
    ScriptedLLMServer,
    error_reply,
    estimate_tokens,
    malformed_reply,
    prompt_text,
    raw_tool_reply,
    text_reply,
    tool_reply,
)
from workers.agent.errors import ConfigurationError, LLMProtocolError, LLMRejected, LLMUnavailable
from workers.agent.tools import PARSE_ERROR_KEY, RAW_ARGUMENTS_KEY, WORKER_TOOLS
from workers.llm.client import OpenAILLM

MESSAGES = [
    {"role": "system", "content": "You are a test."},
    {"role": "user", "content": "Click the button."},
]


def make_llm(server: ScriptedLLMServer, **overrides: object) -> OpenAILLM:
    values: dict = {
        "llm_base_url": server.base_url,
        "llm_api_key": "sk-test-secret",
        "llm_model": "shared-model",
        "llm_model_worker": "worker-model",
        "llm_max_retries": 0,
        "llm_timeout_s": 10.0,
    }
    values.update(overrides)
    return OpenAILLM(Settings(**values))


async def test_tool_calls_and_usage_round_trip(llm_server: ScriptedLLMServer) -> None:
    llm_server.set_policy(
        lambda req: tool_reply(
            ("click", {"ref": "3:12"}),
            ("type", {"ref": "3:4", "text": "héllo", "submit": True}),
            content="Clicking.",
        )
    )
    before = metrics.sample_value(
        "webagent_llm_requests_total",
        {"role": "worker", "model": "worker-model", "outcome": "ok"},
    )
    llm = make_llm(llm_server)
    reply = await llm.chat("worker", MESSAGES, tools=WORKER_TOOLS, tool_choice="auto")
    await llm.close()

    assert [(c.name, dict(c.arguments)) for c in reply.tool_calls] == [
        ("click", {"ref": "3:12"}),
        ("type", {"ref": "3:4", "text": "héllo", "submit": True}),
    ]
    assert all(c.id.startswith("call_") for c in reply.tool_calls)
    assert reply.content == "Clicking." and reply.finish_reason == "tool_calls"
    assert reply.model == "worker-model" and reply.latency_s > 0

    request = llm_server.requests[0]
    assert request["model"] == "worker-model"
    names = [t["function"]["name"] for t in request["tools"]]
    assert names == [t["function"]["name"] for t in WORKER_TOOLS] and "click" in names
    assert request["tool_choice"] == "auto"
    assert reply.input_tokens == estimate_tokens(prompt_text(request))
    out = "Clicking." + "".join(c.name + json.dumps(dict(c.arguments)) for c in reply.tool_calls)
    assert reply.output_tokens == estimate_tokens(out)
    assert llm_server.authorizations == ["Bearer sk-test-secret"]
    after = metrics.sample_value(
        "webagent_llm_requests_total",
        {"role": "worker", "model": "worker-model", "outcome": "ok"},
    )
    assert after == before + 1


async def test_roles_fall_back_to_the_shared_model(llm_server: ScriptedLLMServer) -> None:
    llm_server.set_policy(lambda req: text_reply("plan: none"))
    llm = make_llm(llm_server)
    reply = await llm.chat("planner", MESSAGES)
    await llm.close()
    assert reply.tool_calls == () and reply.content == "plan: none"
    assert reply.finish_reason == "stop"
    assert llm_server.requests[0]["model"] == "shared-model"
    assert "tools" not in llm_server.requests[0]


async def test_malformed_arguments_surface_as_a_parse_error(llm_server: ScriptedLLMServer) -> None:
    llm_server.set_policy(lambda req: raw_tool_reply("click", '{"ref": "3:12"'))
    llm = make_llm(llm_server)
    reply = await llm.chat("worker", MESSAGES, tools=WORKER_TOOLS)
    await llm.close()
    (call,) = reply.tool_calls
    assert call.name == "click" and PARSE_ERROR_KEY in call.arguments
    assert call.arguments[RAW_ARGUMENTS_KEY] == '{"ref": "3:12"'


async def test_server_errors_are_retried_then_unavailable(llm_server: ScriptedLLMServer) -> None:
    llm_server.set_policy(lambda req: error_reply(500))
    llm = make_llm(llm_server, llm_max_retries=1)
    with pytest.raises(LLMUnavailable, match="500"):
        await llm.chat("worker", MESSAGES)
    await llm.close()
    assert len(llm_server.requests) == 2  # the client's own retry, then give up


async def test_retry_recovers_from_one_transient_error(llm_server: ScriptedLLMServer) -> None:
    replies = [error_reply(503), text_reply("ok")]
    llm_server.set_policy(lambda req: replies.pop(0))
    llm = make_llm(llm_server, llm_max_retries=2)
    reply = await llm.chat("worker", MESSAGES)
    await llm.close()
    assert reply.content == "ok" and len(llm_server.requests) == 2


@pytest.mark.parametrize(
    ("status", "error"),
    [(401, ConfigurationError), (404, ConfigurationError), (400, LLMRejected)],
)
async def test_client_errors_map_by_intent(
    llm_server: ScriptedLLMServer, status: int, error: type[Exception]
) -> None:
    llm_server.set_policy(lambda req: error_reply(status, "nope"))
    llm = make_llm(llm_server)
    with pytest.raises(error) as info:
        await llm.chat("worker", MESSAGES)
    await llm.close()
    assert "sk-test-secret" not in str(info.value)


async def test_non_json_body_is_a_protocol_error(llm_server: ScriptedLLMServer) -> None:
    llm_server.set_policy(lambda req: malformed_reply())
    llm = make_llm(llm_server)
    with pytest.raises(LLMProtocolError):
        await llm.chat("worker", MESSAGES)
    await llm.close()


async def test_unreachable_endpoint_is_unavailable() -> None:
    server = ScriptedLLMServer().start()
    url = server.base_url
    server.stop()
    llm = OpenAILLM(Settings(llm_base_url=url, llm_max_retries=0, llm_timeout_s=5.0))
    with pytest.raises(LLMUnavailable, match="unreachable"):
        await llm.chat("worker", MESSAGES)
    await llm.close()


async def test_models_endpoint_lists_the_scripted_model(llm_server: ScriptedLLMServer) -> None:
    import openai

    client = openai.AsyncOpenAI(base_url=llm_server.base_url, api_key="k")
    models = await client.models.list()
    await client.close()
    assert [m.id for m in models.data] == ["scripted-model"]


@pytest.mark.parametrize("status", [400, 404, 429, 500])
async def test_api_key_echoed_by_the_endpoint_is_scrubbed(
    llm_server: ScriptedLLMServer, status: int
) -> None:
    """Some endpoints echo the Authorization header; the key must not reach task errors."""
    llm_server.set_policy(lambda req: error_reply(status, "bad header: Bearer sk-test-secret"))
    llm = make_llm(llm_server)
    with pytest.raises(Exception) as info:
        await llm.chat("worker", MESSAGES)
    await llm.close()
    assert "sk-test-secret" not in str(info.value)
    assert "sk-test-secret" not in "".join(traceback.format_exception(info.value))


async def test_repeated_or_missing_tool_call_ids_are_made_unique(
    llm_server: ScriptedLLMServer,
) -> None:
    """Some servers repeat one id (or send none) within a reply; tool messages need one each."""

    def call(call_id: str | None, ref: str) -> dict:
        return {
            "id": call_id,
            "type": "function",
            "function": {"name": "click", "arguments": json.dumps({"ref": ref})},
        }

    body = {
        "id": "chatcmpl-dup",
        "object": "chat.completion",
        "created": 0,
        "model": "worker-model",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls",
                "message": {
                    "role": "assistant",
                    "content": None,
                    "tool_calls": [call("call_0", "1:1"), call("call_0", "1:2"), call("", "1:3")],
                },
            }
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }
    llm_server.set_policy(lambda request: Reply(raw_body=json.dumps(body)))
    llm = make_llm(llm_server)
    try:
        reply = await llm.chat("worker", MESSAGES, tools=WORKER_TOOLS)
    finally:
        await llm.close()
    ids = [c.id for c in reply.tool_calls]
    assert len(ids) == 3 and len(set(ids)) == 3 and all(ids)
    assert [c.arguments["ref"] for c in reply.tool_calls] == ["1:1", "1:2", "1:3"]


async def test_unsupported_status_names_the_url_the_model_and_the_settings(
    llm_server: ScriptedLLMServer,
) -> None:
    """Issue 23 §5: an LLM failure said "Error code: 501" and nothing else."""
    llm_server.set_policy(lambda req: error_reply(501, "tools are not supported"))
    llm = make_llm(llm_server)
    with pytest.raises(LLMUnavailable) as info:
        await llm.chat("worker", MESSAGES)
    await llm.close()
    said = str(info.value)
    assert not said.startswith("Error code"), said
    assert llm_server.base_url in said and "501 Not Implemented" in said, said
    assert "worker-model" in said and "WEBAGENT_LLM_MODEL_WORKER" in said, said
    assert "WEBAGENT_LLM_BASE_URL" in said
    assert "tools are not supported" in info.value.cause  # the endpoint's words, for operators


async def test_not_found_suggests_the_v1_suffix(llm_server: ScriptedLLMServer) -> None:
    llm_server.set_policy(lambda req: error_reply(404, "no route"))
    llm = make_llm(llm_server)
    with pytest.raises(ConfigurationError) as info:
        await llm.chat("planner", MESSAGES)
    await llm.close()
    said = str(info.value)
    assert "shared-model" in said and "WEBAGENT_LLM_MODEL" in said, said
    assert "/v1" in said and "WEBAGENT_LLM_BASE_URL" in said, said
