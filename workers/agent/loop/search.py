"""The search route and the top of Algorithm 1 (seed 000 §4.1-4.2, lines 1-6).

    (kind, conf) <- ClassifyTask(T)                                   line 2
    if kind = search: return SearchWorker(T)                          lines 3-4

`run_task` asks the Orchestrator for a route (`route.decided`). A read-only lookup with a
URL to read is answered by `SearchWorker`: the given URLs (the start page and any URL in the
instruction) are fetched over plain HTTP through the egress policy (a `Fetcher`) and one
model call answers from their text; no browser is opened. A search that finds no answer
hands the task to the browser loop; the circuit breaker answers a lookup that already had a
substantive answer on the same domain without delegating it again. The model is asked only
when a fetched page names what the lookup is about (`names_the_subject`: the instruction's
quoted values, identifiers and proper names); a catalogue's front page that does not name
the part asked about goes to the browser at once (issue 31 item 6: half of a repeated
lookup's calls were this wasted "not found").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, replace

from app.contracts import EventType, TaskStatus
from workers.agent import prompts, textcut
from workers.agent.context.history import untrusted_block
from workers.agent.loop.brain import BrainConfig
from workers.agent.loop.loop import run_agent, run_worker_only
from workers.agent.loop.metered import MeteredLLM
from workers.agent.protocols import (
    LLM,
    AgentOutcome,
    AgentTask,
    Browser,
    EventSink,
    FetchedPage,
    Fetcher,
    MemoryStore,
    RouteStore,
)
from workers.agent.roles.base import (
    RoleCall,
    as_bool,
    as_text,
    json_schema_format,
    parse_json_object,
)
from workers.agent.roles.orchestrator import (
    BROWSER,
    SEARCH,
    Orchestrator,
    RouteDecision,
    substantive,
)
from workers.agent.testing import InMemoryMemoryStore

SEARCH_ROLE = "worker"  # the lookup is answered by the Worker's model
MAX_URLS = 3
PAGE_CHARS = 12000
PAGE_TOKENS = 3000  # per page (BrainConfig.lookup_page_tokens); 12,000 ASCII characters
_URL = re.compile(r"https?://[^\s<>\"')\]]+")
ANSWER_FORMAT = json_schema_format(
    "lookup_answer",
    {
        "type": "object",
        "properties": {"answer": {"type": "string"}, "found": {"type": "boolean"}},
        "required": ["answer", "found"],
    },
)
BrowserOpener = Callable[[], AbstractAsyncContextManager[Browser]]


@dataclass(frozen=True)
class SearchResult:
    answer: str
    found: bool
    pages: tuple[FetchedPage, ...]


def lookup_urls(task: AgentTask) -> list[str]:
    urls = [task.start_url] if task.start_url else []
    urls += [u.rstrip(".,;") for u in _URL.findall(task.instruction)]
    return list(dict.fromkeys(urls))[:MAX_URLS]


def page_block(page: FetchedPage, budget: int) -> str:
    """A fetched page for the lookup prompt: its text capped at PAGE_CHARS characters and
    about `budget` tokens (a fast estimate: emoji cost several tokens a character, relay
    2026-11-27 finding 10), with our own note after the page when it was cut."""
    text, cut = textcut.fit_tokens(textcut.cut(page.text, PAGE_CHARS), budget)
    cut = cut or len(page.text) > PAGE_CHARS
    note = (
        f"\n(page text cut to about {textcut.estimate_tokens(text)} of about "
        f"{textcut.estimate_tokens(page.text)} tokens: the rest of this page is not shown)"
    )
    return f"URL: {page.url}\nTitle: {page.title}\n{untrusted_block(text)}{note if cut else ''}"


class SearchWorker:
    """HTTP fetch + one model call; nothing here can click or type."""

    def __init__(
        self, fetcher: Fetcher, llm: LLM, sink: EventSink, page_tokens: int = PAGE_TOKENS
    ) -> None:
        self.fetcher, self.llm, self.sink = fetcher, llm, sink
        self.page_tokens = page_tokens

    async def answer(self, task: AgentTask) -> SearchResult:
        pages = []
        for url in lookup_urls(task):
            page = await self.fetcher.fetch(url)
            await self.sink.emit(
                EventType.action_executed,
                {
                    "step": 1,
                    "action": "fetch",
                    "args": {"url": url},
                    "success": page.error is None,
                    "reason": page.error or f"HTTP {page.status}",
                    "error": "navigation_failed" if page.error else None,
                    "page_changed": False,
                },
            )
            if page.error is None and page.text.strip():
                pages.append(page)
        if not pages or not names_the_subject(task.instruction, pages):
            return SearchResult("", False, tuple(pages))
        blocks = "\n".join(page_block(p, self.page_tokens) for p in pages)
        messages = [
            {"role": "system", "content": prompts.load("search_system.md").strip()},
            {
                "role": "user",
                "content": prompts.render(
                    "search_request.md", instruction=task.instruction, pages=blocks
                ),
            },
        ]
        reply = await RoleCall(SEARCH_ROLE, messages, response_format=ANSWER_FORMAT).send(self.llm)
        data = parse_json_object(reply.content) or {}
        answer = as_text(data.get("answer")) if data else as_text(reply.content)
        found = as_bool(data.get("found", bool(answer))) and bool(answer)
        return SearchResult(answer, found, tuple(pages))


_QUOTED = re.compile(r"[\"“'‘]([^\"”'’]{2,80})[\"”'’]")
_WORD = re.compile(r"[\w][\w.\-/]*\w|\w")
_QUESTION_WORDS = frozenset(
    {"what", "which", "who", "whom", "whose", "where", "when", "why", "how", "is", "are",
     "was", "were", "does", "do", "did", "the", "a", "an", "in", "on", "of", "for", "to",
     "and", "or", "find", "tell", "give", "show", "list", "get", "read", "look", "check",
     "please", "i", "my"}
)  # fmt: skip


def subject_terms(instruction: str) -> list[str]:
    """What a lookup is about, in the words a page would print: quoted values, words with a
    digit (M8, FA-1042, 2024) and capitalised words after the first (Norway, Hex)."""
    instruction = _URL.sub(" ", instruction)  # the URLs to read are not what it is about
    terms = [m.strip() for m in _QUOTED.findall(instruction)]
    for i, word in enumerate(_WORD.findall(instruction)):
        if word.lower() in _QUESTION_WORDS:
            continue
        if any(ch.isdigit() for ch in word) or (i > 0 and word[:1].isupper()):
            terms.append(word)
    return terms


def names_the_subject(instruction: str, pages: list[FetchedPage]) -> bool:
    """A fetched page names one of the lookup's subject terms (or the instruction has none,
    "what is the headline of this page?"): only then can one model call answer from it."""
    terms = subject_terms(instruction)
    if not terms:
        return True
    text = " ".join(f"{p.title} {p.text}" for p in pages).lower()
    return any(term.lower() in text for term in terms)


def _answered(answer: str, calls: MeteredLLM, reason: str) -> AgentOutcome:
    return AgentOutcome(
        answer=answer,
        success=True,
        status=TaskStatus.succeeded.value,
        steps=1,
        llm_calls=calls.usage.calls,
        input_tokens=calls.usage.input_tokens,
        output_tokens=calls.usage.output_tokens,
        reason=reason,
    )


async def run_task(
    task: AgentTask,
    open_browser: BrowserOpener,
    llm: LLM,
    sink: EventSink,
    *,
    memory: MemoryStore | None = None,
    fetcher: Fetcher | None = None,
    config: BrainConfig | None = None,
    routes: RouteStore | None = None,
) -> AgentOutcome:
    """Algorithm 1 whole: route, then the search route or the browser loop (which replays a
    proven route of the site first when `routes` has one: workers/agent/replay/replay.py)."""
    memory = memory if memory is not None else InMemoryMemoryStore()
    orchestrator = Orchestrator(memory)
    decision = await orchestrator.decide(task.instruction, task.start_url)
    if decision.kind == SEARCH and (fetcher is None or not lookup_urls(task)):
        decision = RouteDecision(BROWSER, decision.confidence, decision.families, "no_fetch")
    if decision.kind == SEARCH and task.private_regions:  # page text cannot hide a region
        decision = RouteDecision(BROWSER, decision.confidence, decision.families, "private")
    await sink.emit(EventType.route_decided, decision.event())
    searched: MeteredLLM | None = None
    if decision.kind == SEARCH and fetcher is not None:
        prior = await orchestrator.prior_result(task.instruction, task.start_url)
        searched = MeteredLLM(llm, sink)
        if prior is not None:
            return _answered(
                str(prior.get("answer", "")), searched, "circuit breaker: answered before"
            )
        await sink.emit(EventType.step_started, {"step": 1})
        searched.step = 1
        budget = (config or BrainConfig()).lookup_page_tokens
        result = await SearchWorker(fetcher, searched, sink, budget).answer(task)
        found = substantive(result.answer, result.found)
        if found:  # a win is counted after the service's checks (workers/adapters/site_learning)
            return _answered(result.answer, searched, "answered by the search route")
        # nothing found is the service's own finding: counted against the route now
        await orchestrator.record(task.instruction, task.start_url, SEARCH, result.answer, False)
        fallback = RouteDecision(BROWSER, decision.confidence, decision.families, "search_fallback")
        await sink.emit(EventType.route_decided, fallback.event())
    async with open_browser() as browser:
        if config is not None and not config.planner:
            outcome = await run_worker_only(task, browser, llm, sink)
        else:
            outcome = await run_agent(
                task, browser, llm, sink, memory=memory, config=config, routes=routes
            )
    # the route's outcome is recorded by the caller after its checks of the answer
    # (grounding, output_schema, answer check): workers/adapters/site_learning.py
    if searched is None:
        return outcome
    return replace(
        outcome,
        llm_calls=outcome.llm_calls + searched.usage.calls,
        input_tokens=outcome.input_tokens + searched.usage.input_tokens,
        output_tokens=outcome.output_tokens + searched.usage.output_tokens,
    )
