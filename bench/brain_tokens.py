"""Prompt size and prefix stability of the brain's Worker calls vs the naive and Worker-only loops.

A 50-step task: a chain of pages, each with some text and a "Continue" link; the scripted
model (tests/support/llm_server.py over real HTTP, the openai client in front) clicks
Continue with seed 003 §6.3 notes every step and calls done on the last page. The browser is
the in-memory FakeBrowser (no Chromium: this measures prompts, not pages). For each loop the
Worker's requests are taken from the server's log:

- prompt tokens per call (the server's documented estimate: characters / 4 of the message
  text, replayed tool calls and tool schemas);
- the share of each request that equals the previous Worker request's prefix, measured on
  the whole serialized request (tool schemas, then the messages, as JSON: the order a chat
  template renders them), i.e. what a provider's prefix cache could reuse (seed 000 App. E.5).

Run: .venv/bin/python bench/brain_tokens.py [--steps 50] [--filler 600] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import statistics
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.settings import Settings
from bench.support import machine
from tests.support.llm_server import (
    Reply,
    ScriptedLLMServer,
    estimate_tokens,
    prompt_text,
    request_role,
    tool_reply,
)
from tests.support.policies import find_ref, has_element, latest_observation
from workers.agent.loop.loop import run_agent, run_worker_only
from workers.agent.loop.naive import run_naive
from workers.agent.protocols import LLM, AgentOutcome, AgentTask, Browser, EventSink
from workers.agent.testing import FakeBrowser, Page, RecordingSink
from workers.llm.client import OpenAILLM

Runner = Callable[[AgentTask, Browser, LLM, EventSink], Awaitable[AgentOutcome]]
RUNNERS: dict[str, Runner] = {
    "brain": run_agent,
    "worker-only": run_worker_only,
    "naive": run_naive,
}
BASE = "http://chain.test/page/"
SENTENCES = (
    "Each stage of the application is reviewed by a different clerk.",
    "Forms submitted after noon are processed on the next working day.",
    "Keep your reference number until the last stage is confirmed.",
    "Attachments larger than ten megabytes are not accepted here.",
)


def chain(steps: int) -> dict[str, Page]:
    pages: dict[str, Page] = {}
    for n in range(1, steps + 1):
        target = f"{BASE}{n + 1}" if n < steps else f"{BASE}done"
        pages[f"{BASE}{n}"] = [("link", "Continue", target), ("link", "Help", None)]
    pages[f"{BASE}done"] = [("button", "Finished", None)]
    return pages


def filler(chars: int) -> str:
    text, i = "", 0
    while len(text) < chars:
        text += SENTENCES[i % len(SENTENCES)] + " "
        i += 1
    return "\n" + text[:chars]


def policy(request: dict[str, Any]) -> Reply:
    obs = latest_observation(request)
    if has_element(obs, "button", "Finished"):
        return tool_reply(("done", {"answer": "all stages confirmed", "success": True}))
    notes = {
        "evaluation_previous_goal": "Success: the next stage opened",
        "memory": "working through the stages one by one",
        "next_goal": "open the next stage",
    }
    call = tool_reply(("click", {"ref": find_ref(obs, "link", "Continue")}))
    return Reply(json.dumps(notes), call.tool_calls, call.finish_reason)


def serialized(request: dict[str, Any]) -> str:
    return json.dumps({"tools": request.get("tools"), "messages": request["messages"]})


def prefix_share(previous: str, current: str) -> float:
    n = 0
    for a, b in zip(previous, current, strict=False):
        if a != b:
            break
        n += 1
    return n / len(current)


async def run_one(name: str, steps: int, page_chars: int) -> dict[str, Any]:
    with ScriptedLLMServer(policy) as server:
        llm = OpenAILLM(Settings(llm_base_url=server.base_url, llm_max_retries=0))
        task = AgentTask(
            "confirm every stage of the application", f"{BASE}1", steps + 5, time.monotonic() + 600
        )
        browser = FakeBrowser(chain(steps), text_extra=filler(page_chars))
        outcome = await RUNNERS[name](task, browser, llm, RecordingSink())
        await llm.close()
        requests = list(server.requests)
    worker = [r for r in requests if request_role(r) == "other"]
    tokens = [estimate_tokens(prompt_text(r)) for r in worker]
    bodies = [serialized(r) for r in worker]
    shares = [prefix_share(a, b) for a, b in itertools.pairwise(bodies)]
    roles = [request_role(r) for r in requests]
    return {
        "loop": name,
        "success": outcome.success,
        "steps": outcome.steps,
        "calls": {
            "worker": len(worker),
            "planner": roles.count("planner"),
            "summarizer": roles.count("summarizer"),
        },
        "input_tokens_all_calls": sum(estimate_tokens(prompt_text(r)) for r in requests),
        "worker_prompt_tokens": tokens,
        "planner_prompt_tokens": [
            estimate_tokens(prompt_text(r)) for r in requests if request_role(r) == "planner"
        ],
        "step10": tokens[9],
        "step50": tokens[min(49, len(tokens) - 1)],
        "ratio_50_10": round(tokens[min(49, len(tokens) - 1)] / tokens[9], 3),
        "prefix_share_mean": round(statistics.fmean(shares), 3),
        "prefix_share_min": round(min(shares), 3),
        "prefix_share_from_step3_min": round(min(shares[1:]), 3),
    }


def table(results: list[dict[str, Any]]) -> str:
    head = (
        "| loop | steps | Worker / Planner / summarizer calls | step 10 tokens | step 50 tokens"
        " | step 50 / step 10 | prefix share mean (min) | input tokens, all calls |"
    )
    rows = [head, "|" + "---|" * 8]
    for r in results:
        c = r["calls"]
        rows.append(
            f"| {r['loop']} | {r['steps']} | {c['worker']} / {c['planner']} / {c['summarizer']}"
            f" | {r['step10']:,} | {r['step50']:,} | {r['ratio_50_10']:.2f}"
            f" | {r['prefix_share_mean']:.1%} ({r['prefix_share_min']:.1%})"
            f" | {r['input_tokens_all_calls']:,} |"
        )
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--filler", type=int, default=600, help="page text characters")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    results = [asyncio.run(run_one(name, args.steps, args.filler)) for name in RUNNERS]
    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {machine()}")
    print(f"# {args.steps} pages, {args.filler} characters of text per page")
    print(table(results))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
