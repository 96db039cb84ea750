"""Algorithm 1 lines 1-6: routing, the HTTP-only search route, fallback and the breaker."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from workers.adapters.site_learning import RunLearnings
from workers.agent import textcut
from workers.agent.loop.brain import BrainConfig
from workers.agent.loop.search import lookup_urls, run_task
from workers.agent.protocols import AgentTask, Browser, FetchedPage, LLMReply
from workers.agent.testing import (
    BRAIN_SIDE,
    FakeBrowser,
    FakeLLM,
    InMemoryMemoryStore,
    RecordingSink,
    reply,
)

WIKI = "https://en.wikipedia.org/wiki/Norway"
NORWAY = "Norway is a country in Northern Europe. Capital: Oslo. Population 5.5 million."


class FakeFetcher:
    def __init__(self, pages: dict[str, FetchedPage]) -> None:
        self.pages, self.fetched = pages, []

    async def fetch(self, url: str) -> FetchedPage:
        self.fetched.append(url)
        return self.pages.get(url, FetchedPage(url, 404, error="HTTP 404"))


class Opener:
    def __init__(self) -> None:
        self.opened = 0

    @asynccontextmanager
    async def __call__(self) -> AsyncIterator[Browser]:
        self.opened += 1
        yield FakeBrowser({WIKI: [("link", "Oslo", None)]})


def answer(text: str, found: bool = True) -> LLMReply:
    return LLMReply(json.dumps({"answer": text, "found": found}), (), 300, 8, "m", 0.0, "stop")


def task(instruction: str, url: str | None = WIKI) -> AgentTask:
    return AgentTask(instruction, url, 10, time.monotonic() + 30)


async def test_a_lookup_is_answered_over_http_without_a_browser() -> None:
    fetcher = FakeFetcher({WIKI: FetchedPage(WIKI, 200, "Norway", NORWAY)})
    llm, sink, opener = FakeLLM([answer("Oslo")]), RecordingSink(), Opener()
    outcome = await run_task(
        task("What is the capital of Norway"), opener, llm, sink, fetcher=fetcher
    )
    assert (outcome.success, outcome.answer, outcome.llm_calls) == (True, "Oslo", 1)
    assert opener.opened == 0 and fetcher.fetched == [WIKI]
    route = sink.of_type("route.decided")[0]
    assert (route["kind"], route["confidence"], route["families"]) == ("search", 0.6, ["factual"])
    prompt = llm.prompts[0][-1]["content"]
    assert "Capital: Oslo" in prompt and '<page_content untrusted="true">' in prompt
    assert llm.calls[0][2]["type"] == "json_schema"


async def test_a_transaction_opens_the_browser() -> None:
    fetcher, opener, sink = FakeFetcher({}), Opener(), RecordingSink()
    llm = FakeLLM([reply(("done", {"answer": "booked", "success": True}))], BRAIN_SIDE)
    outcome = await run_task(task("book the cheapest flight"), opener, llm, sink, fetcher=fetcher)
    assert outcome.success and opener.opened == 1 and fetcher.fetched == []
    assert sink.of_type("route.decided")[0]["kind"] == "browser"


async def test_a_lookup_without_an_answer_falls_back_to_the_browser() -> None:
    fetcher = FakeFetcher({WIKI: FetchedPage(WIKI, 200, "Norway", "Norway has fjords.")})
    llm = FakeLLM(
        [answer("", found=False), reply(("done", {"answer": "Oslo", "success": True}))], BRAIN_SIDE
    )
    sink, opener = RecordingSink(), Opener()
    outcome = await run_task(
        task("What is the capital of Norway"), opener, llm, sink, fetcher=fetcher
    )
    assert (outcome.answer, opener.opened) == ("Oslo", 1)
    assert [(r["kind"], r["source"]) for r in sink.of_type("route.decided")] == [
        ("search", "classifier"),
        ("browser", "search_fallback"),
    ]
    assert outcome.llm_calls == 3  # search answer, Worker, Planner verification


async def test_the_circuit_breaker_answers_a_repeated_lookup_without_delegating() -> None:
    store = InMemoryMemoryStore()
    fetcher = FakeFetcher({WIKI: FetchedPage(WIKI, 200, "Norway", NORWAY)})
    learn = RunLearnings("What is the capital of Norway")
    first = await run_task(
        task("What is the capital of Norway"),
        Opener(),
        FakeLLM([answer("Oslo")]),
        learn.watch_sink(RecordingSink()),
        memory=store,
        fetcher=fetcher,
    )
    assert store.learnings == {}  # nothing is learned before the caller's checks
    await learn.commit(store, first, WIKI)  # the checked outcome (workers/jobs.py)
    llm = FakeLLM([])
    again = await run_task(
        task("what is the capital of norway"),
        Opener(),
        llm,
        RecordingSink(),
        memory=store,
        fetcher=fetcher,
    )
    assert first.answer == again.answer == "Oslo" and "circuit breaker" in again.reason
    assert llm.calls == [] and fetcher.fetched == [WIKI]


async def test_no_url_means_no_search_route() -> None:
    opener, sink = Opener(), RecordingSink()
    llm = FakeLLM([reply(("done", {"answer": "Oslo", "success": True}))], BRAIN_SIDE)
    await run_task(
        task("What is the capital of Norway", None), opener, llm, sink, fetcher=FakeFetcher({})
    )
    assert opener.opened == 1
    assert sink.of_type("route.decided")[0]["source"] == "no_fetch"


def test_lookup_urls_take_the_start_page_and_urls_in_the_text() -> None:
    t = task("Compare https://a.test/x and https://b.test/y.", "https://a.test/x")
    assert lookup_urls(t) == ["https://a.test/x", "https://b.test/y"]


async def test_the_lookup_prompt_caps_the_page_text_by_tokens_and_says_so() -> None:
    """relay 2026-11-27 finding 10: a one-line lookup sent a whole emoji page (~19k tokens;
    12,000 characters of emoji are far more than 12,000 / 4 tokens)."""
    emoji = "Code: ROVER-42\n" + "🦊🐙🌈✨ " * 3000
    fetcher = FakeFetcher({WIKI: FetchedPage(WIKI, 200, "Emoji", emoji)})
    llm = FakeLLM([answer("ROVER-42")])
    config = BrainConfig(lookup_page_tokens=1500)
    await run_task(
        task("What is the code on this page"), Opener(), llm, RecordingSink(),
        fetcher=fetcher, config=config,
    )  # fmt: skip
    prompt = llm.prompts[0][-1]["content"]
    assert "Code: ROVER-42" in prompt and len(prompt) < 1500 * 2
    assert "page text cut" in prompt.split("</page_content>")[-1]
    whole = FakeLLM([answer("Oslo")])
    short = FakeFetcher({WIKI: FetchedPage(WIKI, 200, "Norway", NORWAY)})
    await run_task(task("capital of Norway?"), Opener(), whole, RecordingSink(), fetcher=short)
    assert NORWAY in whole.prompts[0][-1]["content"]
    assert "cut" not in whole.prompts[0][-1]["content"].split("</page_content>")[-1]


def test_the_fast_estimate_counts_emoji_as_several_tokens() -> None:
    assert textcut.estimate_tokens("a" * 400) == 100
    assert textcut.estimate_tokens("🦊" * 100) >= 200
    assert textcut.estimate_tokens("日本語" * 10) == 30
    head, cut = textcut.fit_tokens("🦊" * 1000 + "tail", 300)
    assert cut and textcut.estimate_tokens(head) <= 300 and head.startswith("🦊")
    assert textcut.fit_tokens("short", 300) == ("short", False)


async def test_a_page_that_does_not_name_the_subject_costs_no_model_call() -> None:
    """Issue 31 item 6: the part is one click away from the catalogue's front page; the
    lookup goes to the browser at once instead of asking the model to say "not found"."""
    shop = "http://parts.test/"
    front = FetchedPage(shop, 200, "Parts", "Catalogue: fasteners, seals, bearings. About us.")
    fetcher, sink, opener = FakeFetcher({shop: front}), RecordingSink(), Opener()
    llm = FakeLLM([reply(("done", {"answer": "4.20 EUR", "success": True}))], BRAIN_SIDE)
    outcome = await run_task(
        task("What is the price of the Hex bolt M8?", shop), opener, llm, sink, fetcher=fetcher
    )
    assert opener.opened == 1 and fetcher.fetched == [shop]
    assert outcome.llm_calls == 2  # Worker and Planner verification: no lookup call
    assert [r["source"] for r in sink.of_type("route.decided")] == ["classifier", "search_fallback"]


def test_subject_terms_are_what_a_page_would_print() -> None:
    from workers.agent.loop.search import subject_terms

    assert subject_terms("What is the price of the Hex bolt M8?") == ["Hex", "M8"]
    assert subject_terms("Who wrote 'The Left Hand of Darkness'? https://x.test/b1") == [
        "The Left Hand of Darkness", "Left", "Hand", "Darkness",
    ]  # fmt: skip
    assert subject_terms("what is the headline of this page?") == []


async def test_with_the_planner_off_the_browser_route_runs_the_worker_alone() -> None:
    """BrainConfig(planner=False) (WEBAGENT_PLANNER_ENABLED=false, `bench realapps
    --no-planner`): no Planner call verifies the claim; on, the Planner does."""
    runs = {}
    for planner in (True, False):
        llm = FakeLLM([reply(("done", {"answer": "booked", "success": True}))], BRAIN_SIDE)
        outcome = await run_task(
            task("book the cheapest flight"),
            Opener(),
            llm,
            RecordingSink(),
            fetcher=FakeFetcher({}),
            config=BrainConfig(planner=planner),
        )
        runs[planner] = (outcome.success, sorted({role for role, _, _ in llm.calls}))
    assert runs[False] == (True, ["worker"])
    assert runs[True][0] and "planner" in runs[True][1]
