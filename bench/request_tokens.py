"""Size of the whole Worker request on MiniWoB++ pages, in o200k tokens (issue 22).

Each task of a MiniWoB++ suite (default `core`) runs one episode through the real agent
loop and browser with the scripted test model (tests/support/miniwob_policies.py: it reads
only the prompt, like a real model), once as `webagent` (Planner + Worker over the Ledger)
and once as the `naive` baseline, same policy, same seeds. Every chat request the scripted
endpoint receives is counted with o200k_base (the bpe-openai wheel: the same encoding
tiktoken names o200k_base, with its vocabulary shipped instead of downloaded):

- tools: the request's `tools` array as compact JSON;
- system: the system messages' text;
- messages: every other message's text, replayed tool calls (name + arguments) included;
- each message adds 4 tokens of chat-template framing; images are counted apart (number
  of image parts), never as base64 text.

Printed: per-call medians of the Worker requests and the tools' share, the whole-run tokens
of each loop (all its calls: Worker, Planner, summarizer) and their ratio, the endpoint's
own input-token figure beside ours, and a table of each offered tool's schema tokens.

`--checklist planner` runs the webagent loop with a Planner call at start (the checklist
from the Planner) instead of the default (the checklist from the Worker's first turn), to
compare what each costs; `--agents webagent` skips the naive run.

Run: .venv/bin/python bench/request_tokens.py [--suite core] [--tasks a,b] [--json out.json]
     [--checklist worker|planner] [--agents webagent,naive]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MESSAGE_FRAMING = 4  # <|start|>role ... <|end|> around each message of a chat template
AGENTS = ("webagent", "naive")


def o200k() -> Any:
    """o200k_base from the bpe-openai wheel (tiktoken would download its vocabulary)."""
    import bpe_openai

    return bpe_openai.get_encoding("o200k_base")


@dataclass(frozen=True)
class RequestCount:
    tools: int
    system: int
    messages: int
    images: int

    @property
    def total(self) -> int:
        return self.tools + self.system + self.messages

    @property
    def tool_share(self) -> float:
        return self.tools / self.total if self.total else 0.0


def _texts(content: Any) -> tuple[list[str], int]:
    """(text parts, number of image parts) of a message's content."""
    if isinstance(content, str):
        return [content], 0
    if not isinstance(content, list):
        return [], 0
    texts = [p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"]
    images = sum(1 for p in content if isinstance(p, dict) and p.get("type") == "image_url")
    return texts, images


def _message_tokens(message: Mapping[str, Any], enc: Any) -> tuple[int, int]:
    texts, images = _texts(message.get("content"))
    for call in message.get("tool_calls") or ():
        function = call.get("function", {})
        texts += [function.get("name", ""), function.get("arguments", "")]
    tokens = sum(len(enc.encode(t)) for t in texts if t)
    return tokens + MESSAGE_FRAMING, images


def count_request(request: Mapping[str, Any], enc: Any) -> RequestCount:
    tools = request.get("tools") or []
    tool_tokens = len(enc.encode(json.dumps(tools, separators=(",", ":")))) if tools else 0
    system = other = images = 0
    for message in request.get("messages") or ():
        tokens, pictures = _message_tokens(message, enc)
        images += pictures
        if message.get("role") == "system":
            system += tokens
        else:
            other += tokens
    return RequestCount(tool_tokens, system, other, images)


def worker_requests(requests: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The Worker's calls: the only ones that offer browser tools."""
    return [r for r in requests if r.get("tools")]


def tool_table(tools: Sequence[Mapping[str, Any]], enc: Any) -> list[tuple[str, int]]:
    """(tool name, tokens of its compact JSON schema), largest first."""
    rows = [
        (str(t["function"]["name"]), len(enc.encode(json.dumps(t, separators=(",", ":")))))
        for t in tools
    ]
    return sorted(rows, key=lambda row: (-row[1], row[0]))


# --- the run ---------------------------------------------------------------------------------


def _planner_at_start() -> None:
    """The webagent runner with a Planner call before the first Worker step."""
    from functools import partial

    from workers.agent.loop.brain import BrainConfig
    from workers.agent.loop.loop import run_agent
    from workers.bench import miniwob

    runner = partial(run_agent, config=BrainConfig(planner_at_start=True))
    original = miniwob.agent_runner
    miniwob.agent_runner = lambda kind: runner if kind == "webagent" else original(kind)  # type: ignore[assignment,return-value]


def _run(agent: str, tasks: tuple[str, ...], seed: int) -> tuple[list[list[dict[str, Any]]], Any]:
    """One episode per task; returns each episode's requests and the bench report."""
    from app.settings import Settings
    from tests.support.llm_server import ScriptedLLMServer
    from tests.support.miniwob_policies import miniwob_policy
    from workers.bench.miniwob import BenchOptions, run_benchmark

    episodes: list[list[dict[str, Any]]] = []
    with ScriptedLLMServer(miniwob_policy) as llm:
        seen = 0

        def cut(_: Any) -> None:
            nonlocal seen
            episodes.append(list(llm.requests[seen:]))
            seen = len(llm.requests)

        settings = Settings(llm_base_url=llm.base_url, llm_model="scripted", llm_max_retries=0)
        options = BenchOptions(tasks=tasks, episodes=1, seed=seed, agent=agent)
        report = asyncio.run(run_benchmark(options, settings, on_episode=cut))
    return episodes, report


def summarize(episodes: list[list[dict[str, Any]]], report: Any, enc: Any) -> dict[str, Any]:
    from bench.support import pct

    calls = [count_request(r, enc) for ep in episodes for r in worker_requests(ep)]
    every = [count_request(r, enc).total for ep in episodes for r in ep]
    totals = [c.total for c in calls]
    return {
        "episodes": len(episodes),
        "success_rate": round(report.overall.success_rate, 3),
        "worker_calls": len(calls),
        "all_calls": len(every),
        "median_worker_request": statistics.median(totals) if totals else 0,
        "p90_worker_request": pct(totals, 90) if totals else 0,
        "median_tools": statistics.median(c.tools for c in calls) if calls else 0,
        "median_system": statistics.median(c.system for c in calls) if calls else 0,
        "median_messages": statistics.median(c.messages for c in calls) if calls else 0,
        "tool_share": round(sum(c.tools for c in calls) / sum(totals), 3) if totals else 0,
        "images": sum(c.images for c in calls),
        "whole_run_tokens": sum(every),
        "planner_calls": sum(1 for ep in episodes for r in ep if r.get("response_format")),
        "endpoint_input_tokens": report.overall.input_tokens,
    }


def _print(results: dict[str, dict[str, Any]], tools: list[tuple[str, int]], args: Any) -> None:
    from bench.support import machine

    print(f"# {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, {machine()}")
    first = next(iter(results.values()))
    print(f"# suite {args.suite}, {first['episodes']} tasks x 1 episode, seed {args.seed}")
    print(f"# checklist from: {args.checklist}")
    print(
        "| loop | success | Worker calls | median Worker request | p90 | median tools | "
        "tools share | median system | median messages | images | Planner calls | whole-run "
        "tokens (all calls) | endpoint's input tokens |"
    )
    print("|" + "---|" * 13)
    for agent, r in results.items():
        print(
            f"| {agent} | {r['success_rate']:.1%} | {r['worker_calls']} | "
            f"{r['median_worker_request']:,.0f} | {r['p90_worker_request']:,} | "
            f"{r['median_tools']:,.0f} | {r['tool_share']:.1%} | {r['median_system']:,.0f} | "
            f"{r['median_messages']:,.0f} | {r['images']} | {r['planner_calls']} | "
            f"{r['whole_run_tokens']:,} | "
            f"{r['endpoint_input_tokens']:,} |"
        )
    ours = results.get("webagent", {}).get("whole_run_tokens", 0)
    naive = results.get("naive", {}).get("whole_run_tokens", 0)
    if ours and naive:
        print(f"\nwhole-run tokens webagent / naive: {ours / naive:.2f}")
    print("\n| tool | tokens |\n|---|---|")
    for name, tokens in tools:
        print(f"| {name} | {tokens} |")
    print(f"| (all {len(tools)}) | {sum(t for _, t in tools)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--suite", default="core")
    parser.add_argument("--tasks", default=None, help="comma-separated task names")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None)
    parser.add_argument("--checklist", choices=("worker", "planner"), default="worker")
    parser.add_argument("--agents", default=",".join(AGENTS))
    args = parser.parse_args()
    if args.checklist == "planner":
        _planner_at_start()
    from workers.agent.tools import worker_tools
    from workers.bench.server import available_tasks
    from workers.bench.suite import resolve_tasks

    names = args.tasks.split(",") if args.tasks else None
    tasks = resolve_tasks(suite=args.suite, tasks=names, available=available_tasks())
    enc = o200k()
    results = {}
    for agent in args.agents.split(","):
        episodes, report = _run(agent, tasks, args.seed)
        results[agent] = summarize(episodes, report, enc)
    registry = tool_table(worker_tools(allow_scripts=True, vision=True), enc)
    _print(results, registry, args)
    if args.json:
        Path(args.json).write_text(json.dumps({"results": results, "tools": registry}, indent=2))


if __name__ == "__main__":
    main()
