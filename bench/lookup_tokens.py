"""Size of the read-only lookup request on an emoji-dense page, in o200k tokens (relay
2026-11-27 finding 10: ~19.3k estimated tokens sent for a one-line answer).

The page (default tests/integration/browser/pages/judging/emoji.html) is turned into text
as the HTTP fetcher does (workers/adapters/fetcher.html_text) and answered by SearchWorker
with a scripted model; the one request it sends (messages plus the answer's JSON schema)
is counted with o200k_base (bench/request_tokens.count_request). Printed: a markdown row per
page-token budget; budget 0 means no token cap (only the 12,000-character cap, as before).

Run: .venv/bin/python bench/lookup_tokens.py [--page PATH] [--budgets 0,3000,1000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.request_tokens import count_request, o200k  # noqa: E402
from workers.adapters.fetcher import html_text  # noqa: E402
from workers.agent.loop.search import SearchWorker  # noqa: E402
from workers.agent.protocols import AgentTask, FetchedPage, LLMReply  # noqa: E402
from workers.agent.testing import FakeLLM, RecordingSink  # noqa: E402

PAGE = ROOT / "tests/integration/browser/pages/judging/emoji.html"
URL = "http://127.0.0.1/judging/emoji.html"
TASK = "What is the code shown on this page? Tell me the code exactly."
NO_CAP = 10**9


class OnePage:
    def __init__(self, page: FetchedPage) -> None:
        self.page = page

    async def fetch(self, url: str) -> FetchedPage:
        return self.page


async def request_tokens(page: FetchedPage, budget: int) -> tuple[int, bool, str]:
    """(o200k tokens of the whole request, whether the page was cut, the model's answer)."""
    answer = LLMReply(json.dumps({"answer": "ROVER-42", "found": True}), (), 0, 0, "m", 0.0, "stop")
    llm = FakeLLM([answer])
    worker = SearchWorker(OnePage(page), llm, RecordingSink(), budget or NO_CAP)
    await worker.answer(AgentTask(TASK, URL, 1, time.monotonic() + 60))
    _, messages, response_format = llm.calls[0]
    request = {"messages": messages}
    counted = count_request(request, o200k())
    schema = len(o200k().encode(json.dumps(response_format, separators=(",", ":"))))
    cut = "page text cut" in str(messages[-1]["content"]).rsplit("</page_content>", 1)[-1]
    return counted.system + counted.messages + schema, cut, "ROVER-42" in str(messages)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--page", type=Path, default=PAGE)
    parser.add_argument("--budgets", default="0,3000,1000")
    args = parser.parse_args()
    title, text = html_text(args.page.read_text(encoding="utf-8"))
    page = FetchedPage(URL, 200, title, text)
    print("| page-token budget | request o200k tokens | page cut | code in the prompt |")
    print("|---:|---:|---|---|")
    for budget in (int(b) for b in args.budgets.split(",")):
        tokens, cut, has_code = asyncio.run(request_tokens(page, budget))
        print(f"| {budget or 'none'} | {tokens} | {cut} | {has_code} |")


if __name__ == "__main__":
    main()
