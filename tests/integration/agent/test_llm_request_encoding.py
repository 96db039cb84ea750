"""A request the client cannot encode is named as such (issue 27 item 1).

Measured before: a message holding a lone surrogate (`🚙\\ud83d…`, a name cut between the two
halves of an emoji) failed as "LLM response is not a chat completion ('utf-8' codec can't
encode character '\\ud83d' …)", after two protocol retries that sent nothing. Now the lone
halves are repaired to U+FFFD before the request leaves, the repair is logged under its
own name, and a body that still cannot be encoded fails as a request-encoding error.
"""

from __future__ import annotations

import logging

import pytest

from tests.integration.agent.test_llm_client import make_llm
from tests.support.llm_server import ScriptedLLMServer, text_reply
from workers.agent.errors import LLMRequestUnencodable
from workers.llm import client as llm_client

BROKEN = [
    {"role": "system", "content": "You are a test."},
    {"role": "user", "content": 'button "🚙\ud83d…[+27 chars: read_text 1:5]"'},
]


async def test_a_lone_surrogate_is_repaired_and_the_request_sent(
    llm_server: ScriptedLLMServer, caplog: pytest.LogCaptureFixture
) -> None:
    llm_server.set_policy(lambda req: text_reply("fine"))
    llm = make_llm(llm_server)
    with caplog.at_level(logging.WARNING):
        reply = await llm.chat("worker", BROKEN)
    await llm.close()
    assert reply.content == "fine"
    assert len(llm_server.requests) == 1
    sent = llm_server.requests[0]["messages"][1]["content"]
    assert sent == 'button "🚙\ufffd…[+27 chars: read_text 1:5]"'
    assert any("request encoding" in r.getMessage() for r in caplog.records)
    assert not any("not a chat completion" in r.getMessage() for r in caplog.records)


async def test_a_body_that_cannot_be_encoded_is_a_request_error(
    llm_server: ScriptedLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    llm_server.set_policy(lambda req: text_reply("fine"))
    monkeypatch.setattr(llm_client, "repaired", lambda body: (body, 0))  # repair disabled
    llm = make_llm(llm_server)
    with pytest.raises(LLMRequestUnencodable) as info:
        await llm.chat("worker", BROKEN)
    await llm.close()
    assert "request" in str(info.value) and "could not be encoded" in str(info.value)
    assert "not a chat completion" not in str(info.value)
    assert llm_server.requests == []
