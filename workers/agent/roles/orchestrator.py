"""The Orchestrator: deterministic verb-classifier routing (seed 000 §4.2, Algorithm 7 / App. D).

`classify_task` is Algorithm 7 as written: the instruction is scored against the pattern
families with the paper's weights (ActionVerbs 0.80, TransactionalPatterns ∧ DateIndicators
0.90, ExplicitTargetVerbs 0.85, VisualOnly 0.80, BrandNames 0.70 towards the browser;
AggregationVerbs ∧ PluralContext 0.70 and FactualLookup ∧ ¬VisualOnly 0.60 towards search);
per-domain learnings override the scores when their confidence exceeds 0.8 (lines 11-14);
ties go to the browser (line 19). The learning is the forager's prior of App. E.6: routes
that worked on a domain, as a Laplace-smoothed success rate per kind.

The circuit breaker (§4.2, last sentence) tracks delegations per (domain, task hash) in the
domain learnings and refuses to re-delegate a read-only lookup whose earlier result was
substantive: the earlier answer is returned instead.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from workers.agent.memory.ledger import domain_of
from workers.agent.protocols import MemoryStore

RouteKind = Literal["browser", "search"]
BROWSER: RouteKind = "browser"
SEARCH: RouteKind = "search"
LEARNING_OVERRIDE = 0.8  # Algorithm 7 line 13
ROUTE_KEY, ROUTE_STATS_KEY, DELEGATION_PREFIX = "route", "route_stats", "delegation:"

_I = re.IGNORECASE
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DAY = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
ACTION_VERBS = re.compile(
    r"\b(?:book|buy|purchase|order|reserve|rent|add (?:it |them )?to (?:the )?(?:cart|basket)|"
    r"check ?out|sign (?:in|up)|log ?in|register|subscribe|fill (?:out|in)|submit|apply|"
    r"click|type|enter|select|upload|download|send|post|pay|cancel|schedule|navigate|"
    r"go to|visit|open|create|delete|update|edit|change|set|enable|disable|log out)\b",
    _I,
)
TRANSACTIONAL_PATTERNS = re.compile(
    r"\b(?:book|reserve|buy|order|purchase|rent|schedule|check-?in|check-?out|flights?|"
    r"hotels?|tickets?|reservations?|appointments?|delivery|stay|nights?)\b",
    _I,
)
DATE_INDICATORS = re.compile(
    rf"\b(?:\d{{4}}-\d{{2}}-\d{{2}}|\d{{1,2}}[/.-]\d{{1,2}}(?:[/.-]\d{{2,4}})?|"
    rf"{_MONTH} \d{{1,2}}(?:st|nd|rd|th)?|\d{{1,2}}(?:st|nd|rd|th)? (?:of )?{_MONTH}|"
    rf"today|tonight|tomorrow|next (?:week|month|weekend|{_DAY})|this (?:week|weekend)|{_DAY})\b",
    _I,
)
EXPLICIT_TARGET_VERBS = re.compile(
    r"\b(?:go to|visit|open|navigate to|log ?in to|sign in to|on|at|via|using)\s+"
    r"(?:the\s+)?(?:https?://)?[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b",
    _I,
)
VISUAL_ONLY = re.compile(
    r"\b(?:screenshot|image|picture|photo|colou?r|chart|graph|map|logo|icon|looks? like|"
    r"visual(?:ly)?|layout|captcha|video|drag|slider|canvas)\b",
    _I,
)
BRAND_NAMES = re.compile(
    r"\b(?:amazon|ebay|walmart|target\.com|booking\.com|airbnb|expedia|kayak|uber|doordash|"
    r"netflix|spotify|linkedin|facebook|instagram|twitter|gmail|youtube|google (?:flights|maps|"
    r"docs|drive)|etsy|zillow|craigslist|ikea|costco|best buy|home depot|gozayaan)\b",
    _I,
)
AGGREGATION_VERBS = re.compile(
    r"\b(?:list|compare|summari[sz]e|find all|collect|aggregate|rank|overview|gather|"
    r"enumerate|tally|count)\b",
    _I,
)
PLURAL_CONTEXT = re.compile(
    r"\b(?:all|every|each|several|multiple|various|many|top \d+|\d+ \w+s|options|results|"
    r"prices|reviews|articles|products|items|sources|papers|companies|countries|cities)\b",
    _I,
)
FACTUAL_LOOKUP = re.compile(
    r"^\s*(?:what|who|whom|when|where|which|why|how (?:many|much|old|tall|far|long|big))\b|"
    r"\b(?:what is|what are|who is|who was|capital of|population of|definition of|"
    r"meaning of|look up|find out|according to)\b",
    _I,
)


@dataclass(frozen=True)
class RouteDecision:
    kind: RouteKind
    confidence: float
    families: tuple[str, ...] = ()
    source: str = "classifier"  # classifier | learning

    def event(self) -> dict[str, Any]:
        """Payload of `route.decided`."""
        return {
            "kind": self.kind,
            "confidence": round(self.confidence, 3),
            "families": list(self.families),
            "source": self.source,
        }


def _learned_route(learnings: Mapping[str, Any]) -> RouteDecision | None:
    route = learnings.get(ROUTE_KEY)
    if not isinstance(route, Mapping) or route.get("kind") not in (BROWSER, SEARCH):
        return None
    confidence = float(route.get("confidence") or 0.0)
    if confidence <= LEARNING_OVERRIDE:
        return None
    return RouteDecision(route["kind"], confidence, ("learning",), "learning")


def classify_task(
    instruction: str, url: str | None = None, learnings: Mapping[str, Any] | None = None
) -> RouteDecision:
    """Algorithm 7: (kind, confidence) for instruction I and optional URL u."""
    s_br = s_se = 0.0
    families: list[str] = []

    def hit(name: str, matched: bool) -> bool:
        if matched:
            families.append(name)
        return matched

    visual = bool(VISUAL_ONLY.search(instruction))
    if hit("action", bool(ACTION_VERBS.search(instruction))):
        s_br += 0.80
    dated = hit("date", bool(DATE_INDICATORS.search(instruction)))
    if hit("transactional", bool(TRANSACTIONAL_PATTERNS.search(instruction))) and dated:
        s_br += 0.90
    if hit("explicit_target", bool(EXPLICIT_TARGET_VERBS.search(instruction))):
        s_br += 0.85
    if hit("visual_only", visual):
        s_br += 0.80
    if hit("brand", bool(BRAND_NAMES.search(instruction))):
        s_br += 0.70
    aggregation = hit("aggregation", bool(AGGREGATION_VERBS.search(instruction)))
    if aggregation and hit("plural", bool(PLURAL_CONTEXT.search(instruction))):
        s_se += 0.70
    if hit("factual", bool(FACTUAL_LOOKUP.search(instruction))) and not visual:
        s_se += 0.60
    if url:  # lines 11-18
        learned = _learned_route(learnings or {})
        if learned is not None:
            return learned
    kind: RouteKind = BROWSER if s_br >= s_se else SEARCH  # line 19
    return RouteDecision(kind, max(s_br, s_se), tuple(families))


def task_hash(instruction: str) -> str:
    """Stable hash of an instruction, insensitive to case and spacing."""
    normalized = " ".join(instruction.lower().split())
    return hashlib.sha256(normalized.encode()).hexdigest()[:16]


def substantive(answer: str | None, success: bool) -> bool:
    """A result worth not asking for again: a successful, non-trivial answer."""
    return success and len((answer or "").strip()) >= 2


def _counts(stats: Mapping[str, Any], kind: str) -> tuple[int, int]:
    """(successes, runs) of a route kind on a domain."""
    value = stats.get(kind)
    if isinstance(value, list | tuple) and len(value) == 2:
        return int(value[0]), int(value[1])
    return 0, 0


def _laplace(stats: Mapping[str, Any], kind: str) -> float:
    wins, runs = _counts(stats, kind)
    return (wins + 1) / (runs + 2)


class Orchestrator:
    """Routes one task and keeps the per-domain learnings and the circuit breaker."""

    def __init__(self, memory: MemoryStore) -> None:
        self.memory = memory

    async def decide(self, instruction: str, url: str | None) -> RouteDecision:
        learnings = await self.memory.load_domain_learnings(domain_of(url)) if url else {}
        return classify_task(instruction, url, learnings)

    async def prior_result(self, instruction: str, url: str | None) -> Mapping[str, Any] | None:
        """The circuit breaker: an earlier substantive lookup of the same (domain, task)."""
        if not url:
            return None
        learnings = await self.memory.load_domain_learnings(domain_of(url))
        prior = learnings.get(DELEGATION_PREFIX + task_hash(instruction))
        if isinstance(prior, Mapping) and prior.get("substantive"):
            return prior
        return None

    async def record(
        self, instruction: str, url: str | None, kind: RouteKind, answer: str | None, success: bool
    ) -> None:
        """Learn from a delegation: the route's success rate and the breaker entry."""
        if not url:
            return
        domain = domain_of(url)
        learnings = await self.memory.load_domain_learnings(domain)
        stats = dict(learnings.get(ROUTE_STATS_KEY) or {})
        wins, runs = _counts(stats, kind)
        stats[kind] = [wins + int(success), runs + 1]
        await self.memory.record_learning(domain, ROUTE_STATS_KEY, stats)
        best = max((BROWSER, SEARCH), key=lambda k: _laplace(stats, k))
        route = {"kind": best, "confidence": round(_laplace(stats, best), 3)}
        await self.memory.record_learning(domain, ROUTE_KEY, route)
        if kind == SEARCH:  # only read-only lookups are answered again from memory
            entry = {"kind": kind, "answer": answer, "substantive": substantive(answer, success)}
            await self.memory.record_learning(
                domain, DELEGATION_PREFIX + task_hash(instruction), entry
            )
