"""A batch of unrelated tasks on one host (issue 34 "Scope"): 20 tasks, each on its own page
of games.test, each re-opens its page, records a fact its page shows and finishes. Printed:
the memory lines (site facts, URL patterns) the later tasks' prompts got, the routes stored
and the replays. The agent loop with the shipped test doubles (FakeBrowser, scripted
FakeLLM, in-memory stores); no browser, no model.

    .venv/bin/python bench/memory_batch.py
"""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workers.adapters.site_learning import RunLearnings
from workers.agent.loop.loop import run_agent
from workers.agent.protocols import AgentTask
from workers.agent.replay.route_record import RouteRecorder
from workers.agent.testing import (
    BRAIN_SIDE,
    FakeBrowser,
    FakeLLM,
    InMemoryMemoryStore,
    InMemoryRouteStore,
    RecordingSink,
    message_text,
    reply,
)

HOST = "http://games.test/"
VERBS = [
    "click",
    "choose",
    "enter",
    "drag",
    "count",
    "select",
    "type",
    "find",
    "copy",
    "sort",
    "scroll",
    "toggle",
    "match",
    "guess",
    "draw",
    "book",
    "search",
    "read",
    "mark",
    "play",
]
MEMORY_LINES = ("fact ", "URL patterns")


async def batch() -> dict[str, int]:
    memory, routes = InMemoryMemoryStore(), InMemoryRouteStore()
    lines = replays = 0
    for n, verb in enumerate(VERBS):
        url = f"{HOST}{verb}-task.html"
        instruction = f"{verb.capitalize()} the widget {n} times on this page"
        value = f"{verb}s {n + 100}"
        task = AgentTask(instruction, url, 5, time.monotonic() + 60, reuse_routes=True)
        recorder, learn = RouteRecorder(instruction, url), RunLearnings(instruction, verb)
        page = FakeBrowser({url: [("button", "Go", url)]}, text_extra=f"\nLimit {value}")
        inner = RecordingSink()
        sink = recorder.watch_sink(learn.watch_sink(inner))
        script = [
            reply(("navigate", {"url": url})),
            reply(("record_fact", {"key": f"limit_{verb}", "value": value, "confidence": 1.0})),
            reply(("done", {"answer": "ok", "success": True})),
        ]
        llm = FakeLLM(script, side=BRAIN_SIDE)
        browser = recorder.watch(learn.watch(page))
        outcome = await run_agent(task, browser, llm, sink, memory=memory, routes=routes)
        await recorder.commit(routes, outcome)
        await learn.commit(memory, outcome, url)
        body = "\n".join(message_text(m) for _, m, _ in llm.calls)
        shown = (ln.strip().removeprefix("- ") for ln in body.splitlines())
        lines += sum(1 for ln in shown if ln.startswith(MEMORY_LINES))
        replays += len(inner.of_type("route.replayed"))
    return {
        "tasks": len(VERBS),
        "memory_prompt_lines": lines,
        "routes_stored": len(routes.routes),
        "replays": replays,
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(batch())))
