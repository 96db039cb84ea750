"""Issue 31 item 2 on a real page: a clock and a readout tick every 50 ms while a slow model
decides; its clicks on an unchanged button and its done() all run, none is thrown away by
the stale-view guard (0 discarded actions whose targets did not change)."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest

from workers.agent.loop.loop import run_worker_only
from workers.agent.protocols import AgentTask
from workers.agent.testing import FakeLLM, RecordingSink, reply
from workers.browser.session import PageSession

pytestmark = pytest.mark.browser
THINK_S = 0.4  # the page ticks eight times while the model "thinks"


def _add_ref(messages: list[dict[str, Any]]) -> str:
    text = "\n".join(str(m.get("content")) for m in messages if m["role"] == "user")
    return re.findall(r"\[(\d+:\d+)\] button \"Add one\"", text)[-1]


def _slow(*then_done: bool) -> list[Any]:
    def choice(done: bool) -> Any:
        def decide(messages: list[dict[str, Any]]) -> Any:
            time.sleep(THINK_S)  # a slow model: the page's timers run on in Chromium
            calls: list[tuple[str, dict[str, Any]]] = [("click", {"ref": _add_ref(messages)})]
            if done:
                calls.append(("done", {"answer": "count 2", "success": True}))
            return reply(*calls)

        return decide

    return [choice(d) for d in then_done]


async def test_moves_on_a_ticking_page_are_not_thrown_away(
    session: PageSession, probe_port: int
) -> None:
    llm, sink = FakeLLM(_slow(False, True)), RecordingSink()
    url = f"http://127.0.0.1:{probe_port}/actions/ticking.html"
    outcome = await run_worker_only(
        AgentTask("add two", url, 5, time.monotonic() + 90), session, llm, sink
    )
    assert outcome.success and outcome.answer == "count 2", outcome
    assert len(llm.prompts) == 2  # no second decision on any step
    previews = [str(o.get("preview", "")) for o in sink.of_type("observation")]
    assert not any("[view refreshed]" in p for p in previews)
    assert await session.page.inner_text("#count") == "2"
