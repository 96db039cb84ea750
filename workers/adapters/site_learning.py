"""Learnings from one run, written only from the service's verified outcomes (issue 21).

Seed 000 §4.2 / §6.3 / §6.5: the per-domain learnings store grows from what runs did, not
from what pages say. While the run goes, `RunLearnings` watches the browser and the event
stream for the service's own records: the URLs the page actually reached, challenge and
bot-wall sightings (a tool result `bot_block`, a challenge the supervision found), the click
that dismissed a consent banner, the route the Orchestrator took. `commit` runs after the
service's checks (grounding, output_schema, answer check: workers/adapters/results.py):

- always: challenge sightings (`challenges`, and `bot_protected`: the click cascade never
  uses its scripted tier there, workers/browser/act/click_memory.py);
- always: the run's id on the earlier runs' facts its prompts showed (`used_by`, issue 34;
  workers/adapters/memory_report.py);
- always: the route's outcome, counted as a win only when the checked outcome succeeded
  (workers/agent/roles/orchestrator.py, Algorithm 7's learned override);
- only for a checked success: URL templates of the reached URLs (which path segments and
  query parameters carried state), the consent dismissals, and the run's facts worth
  keeping (with source URL, time and run): properties of the site, never the run's answer —
  a fact stating a value of the answer, or naming a value the task gave (a quoted name,
  a number, a capitalised name), belongs to that task and is not kept.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from app.contracts import EventType, TaskStatus
from workers.adapters.memory_report import note_fact_uses
from workers.agent.judge.answer_check import claims_in
from workers.agent.judge.claims import claims_of
from workers.agent.loop.brain import element_label
from workers.agent.memory.ledger import Fact, domain_of
from workers.agent.memory.site_memory import (
    BOT_PROTECTED,
    CHALLENGES,
    FACTS,
    MAX_FACTS,
    MAX_POPUPS,
    POPUPS,
    URL_TEMPLATES,
    addressed_to_agent,
    consent_dismissal,
    fact_intent,
    fact_seen,
    learn_templates,
    merge_templates,
    task_values,
)
from workers.agent.people.proxy import BrowserProxy
from workers.agent.protocols import (
    Action,
    AgentOutcome,
    Browser,
    EventSink,
    MemoryStore,
    Observation,
    ToolResult,
)
from workers.agent.roles.orchestrator import BROWSER, SEARCH, Orchestrator
from workers.agent.toolerrors import ToolError

log = logging.getLogger(__name__)
_WORDS = re.compile(r"[a-z0-9]+")
KEPT_FACT_CONFIDENCE = 0.8  # facts below this confidence are not carried to later runs


class RunLearnings:
    """One run's observations of its sites; `commit` writes what the checks allow."""

    def __init__(self, instruction: str, task_id: str = "") -> None:
        self.instruction, self.task_id = instruction, task_id
        self.reached: dict[str, list[str]] = {}
        self.challenges: dict[str, dict[str, Any]] = {}
        self.popups: dict[str, list[dict[str, str]]] = {}
        self.facts: list[tuple[Fact, str]] = []  # (fact, page url) the run recorded, seen there
        self.route: str | None = None
        self.page_text = ""
        self.page_url = ""
        self.facts_used: list[dict[str, str]] = []  # facts of earlier runs shown to this one
        self.facts_kept = 0

    # -- during the run -----------------------------------------------------------------------
    def reached_url(self, url: str) -> None:
        if urlsplit(url).scheme in ("http", "https") and (domain := domain_of(url)):
            urls = self.reached.setdefault(domain, [])
            if url not in urls:
                urls.append(url)

    def challenge(self, url: str, kinds: tuple[str, ...] = ()) -> None:
        domain = domain_of(url)
        if not domain:
            return
        seen = self.challenges.setdefault(domain, {"count": 0, "kinds": []})
        seen["count"] += 1
        seen["kinds"] = sorted({*seen["kinds"], *kinds})
        seen["last_url"] = url

    def fact(self, event: Mapping[str, Any]) -> None:
        """A `fact.recorded` event: kept with the page it was read on."""
        fact = Fact(
            key=str(event.get("key", "")),
            value=str(event.get("value", "")),
            category=event.get("category", "observation"),
            confidence=float(event.get("confidence") or 0),
        )
        if fact_seen(fact.value, self.page_text):  # a value the page showed, not a paraphrase
            self.facts.append((fact, self.page_url))

    def clicked(self, action: Action, result: ToolResult, page_url: str) -> None:
        if action.name != "click" or not result.success or "ref" not in action.args:
            return
        label = element_label(self.page_text, str(action.args["ref"]))
        popup = consent_dismissal(label, self.page_text)
        domain = domain_of(page_url)
        if popup is not None and domain:
            known = self.popups.setdefault(domain, [])
            if popup not in known:
                known.append(popup)

    def watch(self, browser: Browser) -> Browser:
        return LearningBrowser(browser, self)

    def watch_sink(self, sink: EventSink) -> EventSink:
        return RouteSink(sink, self)

    # -- after the service's checks -------------------------------------------------------------
    async def commit(
        self, store: MemoryStore, outcome: AgentOutcome, start_url: str | None
    ) -> None:
        """Write the learnings this run earned; `outcome` is the checked outcome. First,
        whatever the outcome: the earlier runs' facts its prompts showed name it (issue 34)."""
        now = datetime.now(UTC).isoformat(timespec="seconds")
        entries = {domain: urls[0] for domain, urls in self.reached.items()}
        self.facts_used = await note_fact_uses(store, self.instruction, self.task_id, entries)
        for domain, seen in self.challenges.items():
            prior = (await store.load_domain_learnings(domain)).get(CHALLENGES)
            count = int(prior.get("count", 0)) if isinstance(prior, Mapping) else 0
            kinds = list(prior.get("kinds", [])) if isinstance(prior, Mapping) else []
            value = {
                "count": count + seen["count"],
                "kinds": sorted({*kinds, *seen["kinds"]}),
                "last_url": seen.get("last_url", ""),
                "last_seen": now,
            }
            await store.record_learning(domain, CHALLENGES, value)
            await store.record_learning(domain, BOT_PROTECTED, True)
        verified = outcome.success and outcome.status == TaskStatus.succeeded.value
        if self.route in (BROWSER, SEARCH):
            await Orchestrator(store).record(
                self.instruction,
                start_url,
                self.route,
                outcome.answer,
                verified,  # type: ignore[arg-type]
            )
        if verified:
            await self._verified(store, now, outcome)

    async def _verified(self, store: MemoryStore, now: str, outcome: AgentOutcome) -> None:
        for domain, urls in self.reached.items():
            learned = learn_templates(urls, self.instruction)
            if not learned:
                continue
            examples = {t.pattern: u for t in learned for u in urls if t.matches(u)}
            stored = (await store.load_domain_learnings(domain)).get(URL_TEMPLATES)
            rows = merge_templates(stored, learned, example=examples, when=now, run=self.task_id)
            await store.record_learning(domain, URL_TEMPLATES, rows)
        for domain, popups in self.popups.items():
            stored = (await store.load_domain_learnings(domain)).get(POPUPS)
            names = {p["name"] for p in popups}
            kept: list[dict[str, Any]] = [dict(p, last_seen=now) for p in popups]
            for old in stored if isinstance(stored, list) else []:
                if isinstance(old, Mapping) and old.get("name") not in names:
                    kept.append(dict(old))
            await store.record_learning(domain, POPUPS, kept[:MAX_POPUPS])
        await self._facts(store, now, outcome)

    def _site_property(self, fact: Fact, answer: set[str]) -> bool:
        """A fact worth keeping for later runs: not this run's answer, not about its values."""
        if fact.category == "credential" or fact.confidence < KEPT_FACT_CONFIDENCE:
            return False
        if addressed_to_agent(f"{fact.key} {fact.value}"):
            return False  # issue 32 item 5: page text that speaks to the agent is no fact
        if {c.key for c in claims_of(fact.value)} & answer:
            return False  # relay run: "total: 56.50 EUR" came back beside a claim for 52.50
        words = set(_WORDS.findall(f"{fact.key} {fact.value}".lower()))
        return not words & task_values(self.instruction)

    async def _facts(self, store: MemoryStore, now: str, outcome: AgentOutcome) -> None:
        answer = {c.key for c in claims_in(outcome.answer, outcome.data)}
        by_domain: dict[str, list[dict[str, Any]]] = {}
        intent = fact_intent(self.instruction)  # issue 34: shown to this intent and page only
        for fact, url in self.facts:
            if not self._site_property(fact, answer):
                continue
            row = {"key": fact.key, "value": fact.value, "url": url, "seen": now, "intent": intent}
            by_domain.setdefault(domain_of(url), []).append({**row, "task_id": self.task_id})
        for domain, rows in by_domain.items():
            if not domain:
                continue
            stored = (await store.load_domain_learnings(domain)).get(FACTS)
            keys = {r["key"] for r in rows}
            older = [r for r in stored or [] if isinstance(r, Mapping) and r.get("key") not in keys]
            await store.record_learning(domain, FACTS, [*reversed(rows), *older][:MAX_FACTS])
            self.facts_kept += len(rows)


class LearningBrowser(BrowserProxy):
    """Browser over another: notes reached URLs, bot walls and consent clicks for `learn`."""

    def __init__(self, inner: Browser, learn: RunLearnings) -> None:
        super().__init__(inner)
        self.learn = learn

    async def goto(self, url: str) -> ToolResult:
        result = await self.inner.goto(url)
        self._after(result)
        return result

    async def observe(self, mode: str = "compact") -> Observation:
        observation = await self.inner.observe(mode)
        self.learn.page_text, self.learn.page_url = observation.text, observation.url
        self.learn.reached_url(observation.url)
        return observation

    async def execute(self, action: Action) -> ToolResult:
        page_url = self.inner.url
        result = await self.inner.execute(action)
        self.learn.clicked(action, result, page_url)
        self._after(result)
        return result

    def _after(self, result: ToolResult) -> None:
        url = self.inner.url
        if result.error == ToolError.bot_block:
            self.learn.challenge(url)
        elif result.success:
            self.learn.reached_url(url)


def _kinds(data: Mapping[str, Any]) -> list[str]:
    element = str(data.get("element") or "")
    return [k.strip() for k in element.split(",") if k.strip()]


class RouteSink:
    """EventSink over another: notes the route the Orchestrator took (the last decision),
    the facts the run recorded and the challenges the supervision handed to a person."""

    def __init__(self, inner: EventSink, learn: RunLearnings) -> None:
        self.inner, self.learn = inner, learn

    async def emit(self, type: str, data: Mapping[str, Any]) -> None:
        if type == EventType.route_decided:
            self.learn.route = str(data.get("kind") or "") or None
        elif type == EventType.fact_recorded:
            self.learn.fact(data)
        elif type == EventType.approval_requested and data.get("kind") == "challenge":
            self.learn.challenge(str(data.get("url") or ""), tuple(_kinds(data)))
        await self.inner.emit(type, data)

    async def save_screenshot(self, step: int, jpeg: bytes) -> None:
        await self.inner.save_screenshot(step, jpeg)

    async def cancel_requested(self) -> bool:
        return await self.inner.cancel_requested()
