"""run_agent and run_naive through the real openai client and the scripted HTTP server.

The browser is the unit-test double (no Chromium needed); what is exercised for real is the
wire format: tool schemas, replayed assistant tool calls, tool results, usage accounting.
"""

from __future__ import annotations

import time

from app.settings import Settings
from tests.support.llm_server import (
    ScriptedLLMServer,
    estimate_tokens,
    prompt_text,
    raw_tool_reply,
    request_role,
)
from tests.support.policies import ScriptedPolicy, click, done, last_tool_results
from workers.agent.loop.loop import run_agent
from workers.agent.loop.naive import run_naive
from workers.agent.protocols import AgentTask
from workers.agent.testing import FakeBrowser, RecordingSink
from workers.llm.client import OpenAILLM

HOME, LIST, ITEM = "http://site.test/", "http://site.test/list", "http://site.test/item"
PAGES = {
    HOME: [("link", "List", LIST), ("button", "Noop", None)],
    LIST: [("link", "Item", ITEM)],
    ITEM: [("button", "Buy", None)],
}
FILLER = "\n" + "Some long product description text. " * 60


def llm_for(server: ScriptedLLMServer) -> OpenAILLM:
    return OpenAILLM(Settings(llm_base_url=server.base_url, llm_max_retries=0))


def task(max_steps: int = 10) -> AgentTask:
    return AgentTask("open the item", HOME, max_steps, time.monotonic() + 60)


async def test_scripted_run_round_trips_usage(llm_server: ScriptedLLMServer) -> None:
    policy = ScriptedPolicy(
        [
            lambda obs: raw_tool_reply("click", '{"ref": '),  # broken JSON: fed back
            click("link", "List"),
            click("link", "Item"),
            done("item page reached"),
        ]
    )
    llm_server.set_policy(policy)
    llm, sink = llm_for(llm_server), RecordingSink()
    browser = FakeBrowser(PAGES)
    outcome = await run_agent(task(), browser, llm, sink)
    await llm.close()

    assert (outcome.status, outcome.answer, outcome.steps) == ("succeeded", "item page reached", 4)
    assert browser.current == ITEM
    assert llm_server.rejected == []
    worker = [r for r in llm_server.requests if request_role(r) == "other"]
    assert "not valid JSON" in last_tool_results(worker[1])[0]["reason"]
    assert outcome.input_tokens == sum(llm_server.prompt_tokens())
    calls = sink.of_type("llm.call")
    assert [c["input_tokens"] for c in calls] == llm_server.prompt_tokens()
    assert outcome.output_tokens == sum(c["output_tokens"] for c in calls) > 0


async def test_compressed_prompts_stay_small_where_naive_grows(
    llm_server: ScriptedLLMServer,
) -> None:
    def script() -> ScriptedPolicy:
        return ScriptedPolicy([click("button", "Noop")] * 6 + [done("x")])

    sizes = {}
    for name, runner in (("compressed", run_agent), ("naive", run_naive)):
        llm_server.requests.clear()
        llm_server.set_policy(script())
        llm = llm_for(llm_server)
        outcome = await runner(task(), FakeBrowser(PAGES, text_extra=FILLER), llm, RecordingSink())
        await llm.close()
        assert outcome.success and llm_server.rejected == []
        worker = [r for r in llm_server.requests if request_role(r) == "other"]
        sizes[name] = [estimate_tokens(prompt_text(r)) for r in worker]
    compressed, naive = sizes["compressed"], sizes["naive"]
    page_tokens = len(FILLER) // 4
    assert compressed[-1] - compressed[1] < page_tokens  # flat: a few lines per step
    assert naive[-1] - naive[1] > 5 * page_tokens  # linear: one page per step
