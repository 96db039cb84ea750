"""The brain on a multi-step site: Planner + Worker vs the Worker alone (issue 22).

The local kettle shop of tests/support/route_shop.py (a cookie consent dialog, a filter form
with a compound colour dropdown and an "In stock only" checkbox, a result list, product pages
reached from the list with a size select, delivery radios, a city field and a "Quote delivery"
button) and one comparison task across two product pages: quote express delivery of size
1.7 L to a city for each in-stock blue kettle and report the cheaper one with its total
(10+ steps however the actions are batched: consent, filters, two list -> detail trips,
two quote forms). The expected answer is computed from the shop's data, never shown to the
model.

Each configuration runs once on a fresh browser context with the real loop (`brain`:
`run_agent`, Planner + Worker over the Ledger; `worker-only`: `run_worker_only`, the Worker
with compressed history, no Planner) against the model endpoint of --llm-base-url. Every chat
request is counted with o200k_base as bench/request_tokens.py counts it (tools as compact
JSON, every message, 4 tokens of framing per message). Printed per configuration: success
(both kettle names right and the cheaper one's total in the answer), status, steps, model
calls by role, o200k input tokens, wall time, the answer.

Run: .venv/bin/python bench/brain_site.py --llm-base-url URL --model NAME
     [--configs brain,worker-only] [--llm-timeout 180] [--max-steps 30] [--json out.json]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from app.settings import Settings  # noqa: E402
from bench.request_tokens import count_request, o200k  # noqa: E402
from bench.support import machine  # noqa: E402
from tests.support.route_shop import KETTLES, ShopServer, total  # noqa: E402
from workers.agent.loop.loop import run_agent, run_worker_only  # noqa: E402
from workers.agent.protocols import LLM, AgentTask, LLMReply, response_format_arg  # noqa: E402
from workers.agent.testing import RecordingSink  # noqa: E402
from workers.browser.runtime.pool import BrowserPool  # noqa: E402
from workers.browser.session import PageSession  # noqa: E402
from workers.llm.client import OpenAILLM  # noqa: E402

RUNNERS = {"brain": run_agent, "worker-only": run_worker_only}
SIZE, CITY, DELIVERY = "1.7 L", "Lisbon", "express"


def instruction() -> str:
    return (
        "In the kettle shop, use the filters to list the blue kettles that are in stock. "
        f"For each of them, open its page and get a delivery quote for size {SIZE} with "
        f"express delivery to {CITY}. Report which of them has the lower total, with both "
        "kettle names and their totals."
    )


def expected() -> dict[str, str]:
    """Each in-stock blue kettle's total (from the shop's data, not shown to the model)."""
    blue = [k for k in KETTLES if k.colour == "blue" and k.in_stock]
    return {k.name: total(k.name, SIZE, DELIVERY) for k in blue}


def judged(answer: str | None) -> bool:
    """Both names and the cheaper kettle's total in the answer, cheaper one named first or
    called the lower one (read by eye too: the table reports the answer)."""
    text = (answer or "").replace(",", ".")
    totals = expected()
    cheaper = min(totals, key=lambda name: float(totals[name].split()[0]))
    return all(name in text for name in totals) and totals[cheaper].split()[0] in text


class CountingLLM:
    """Passes every call on and counts its request with o200k, by role."""

    def __init__(self, inner: LLM) -> None:
        self.inner, self.enc = inner, o200k()
        self.calls: Counter[str] = Counter()
        self.tokens = 0
        self.worker_requests: list[int] = []

    async def chat(
        self,
        role: str,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | None = None,
        response_format: Mapping[str, Any] | None = None,
    ) -> LLMReply:
        count = count_request({"messages": list(messages), "tools": list(tools or [])}, self.enc)
        self.calls[role] += 1
        self.tokens += count.total
        if tools:
            self.worker_requests.append(count.total)
        return await self.inner.chat(
            role, messages, tools, tool_choice, **response_format_arg(response_format)
        )


async def run_one(config: str, settings: Settings, args: argparse.Namespace) -> dict[str, Any]:
    shop = ShopServer()
    client = OpenAILLM(settings)
    llm = CountingLLM(client)
    pool = BrowserPool(settings)
    sink = RecordingSink()
    await pool.start()
    started = time.monotonic()
    try:
        async with pool.context() as page:
            session = await PageSession.open(page, settings, llm=llm)
            try:
                task = AgentTask(
                    instruction=instruction(),
                    start_url=f"{shop.base_url}/",
                    max_steps=args.max_steps,
                    deadline=time.monotonic() + args.timeout,
                    allowed_domains=("127.0.0.1",),
                )
                outcome = await RUNNERS[config](task, session, llm, sink)
            finally:
                await session.close()
    finally:
        await pool.close()
        await client.close()
        shop.close()
    return {
        "config": config,
        "success": judged(outcome.answer) and outcome.success,
        "status": outcome.status,
        "steps": outcome.steps,
        "calls": dict(llm.calls),
        "o200k_input_tokens": llm.tokens,
        "worker_requests": llm.worker_requests,
        "wall_s": round(time.monotonic() - started, 1),
        "answer": outcome.answer,
        "reason": outcome.reason,
        "pages": shop.hits,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--llm-base-url", required=True)
    parser.add_argument("--model", default="gpt-4o-mini")
    parser.add_argument("--llm-timeout", type=float, default=180.0)
    parser.add_argument("--configs", default=",".join(RUNNERS))
    parser.add_argument("--max-steps", type=int, default=30)
    parser.add_argument("--timeout", type=float, default=7200.0, help="task deadline, seconds")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    settings = Settings(
        llm_base_url=args.llm_base_url,
        llm_model=args.model,
        llm_timeout_s=args.llm_timeout,
        llm_max_retries=0,
        allow_private_networks=True,
        chromium_path=os.environ.get("WEBAGENT_CHROMIUM_PATH", "/usr/bin/chromium"),
    )
    results = []
    for config in args.configs.split(","):
        results.append(asyncio.run(run_one(config, settings, args)))
        print(json.dumps(results[-1], indent=1), flush=True)
    report = {"machine": machine(), "expected": expected(), "results": results}
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
