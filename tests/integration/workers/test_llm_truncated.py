"""A truncated or non-JSON model reply is retried, then fails with a specific error."""

from __future__ import annotations

import pytest

from tests.integration.agent.test_llm_client import MESSAGES, make_llm
from tests.support.llm_server import Reply, ScriptedLLMServer, malformed_reply, text_reply
from workers.agent.errors import LLMProtocolError
from workers.llm import client as llm_client

TRUNCATED = Reply(raw_body='{"id": "chatcmpl-1", "object": "chat.completion", "choices": [{"ind')


@pytest.fixture(autouse=True)
def no_backoff(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(llm_client, "PROTOCOL_RETRY_DELAY_S", 0.0)


async def test_one_broken_body_is_retried(llm_server: ScriptedLLMServer) -> None:
    replies = iter([malformed_reply(), text_reply("fine")])
    llm_server.set_policy(lambda req: next(replies))
    llm = make_llm(llm_server)
    reply = await llm.chat("worker", MESSAGES)
    await llm.close()
    assert reply.content == "fine" and len(llm_server.requests) == 2


@pytest.mark.parametrize("broken", [TRUNCATED, malformed_reply()], ids=["truncated", "not-json"])
async def test_a_body_that_stays_broken_is_named(
    llm_server: ScriptedLLMServer, broken: Reply
) -> None:
    llm_server.set_policy(lambda req: broken)
    llm = make_llm(llm_server)
    with pytest.raises(LLMProtocolError) as info:
        await llm.chat("worker", MESSAGES)
    await llm.close()
    assert "no choices" not in str(info.value)
    assert "not a chat completion" in str(info.value)
    assert len(llm_server.requests) == 1 + llm_client.PROTOCOL_RETRIES
