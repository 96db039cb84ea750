"""What earlier runs learned about a site, as the agent reads it (seed 000 §4.2, §5.2, §6.3, §6.5).

Per domain, one tenant's learnings store (`MemoryStore.load_domain_learnings`, key -> JSON)
holds:

- `click_tier` / `bot_protected`: the click cascade's tier counts and the bot-wall mark
  (seed 000 §6.3; workers/browser/act/click_memory.py reads them, Tier 3 never on a protected site);
- `challenges`: how often a challenge or bot wall was seen there (`bot_protected` is set from it);
- `route` / `route_stats`: the Orchestrator's route preference with its confidence (seed 000
  Algorithm 7 lines 11-14, override when confidence > 0.8), counted only after the service's
  own checks of the run (grounding, output_schema, answer check);
- `url_templates`: the URL grammar of seed 000 §6.5, learned from URLs a verified run
  actually reached: which path segments and which query parameters carried state;
- `popups`: consent banners seen and the action that dismissed them;
- `facts`: facts of verified runs worth keeping, with source URL and when they were seen.

Dead ends are kept beside them per (page, action) with a cause, a count, first/last seen and
an expiry by cause (`DEAD_END_TTL_HOURS`): a transient `network` or `timeout` failure decays
in hours; `policy_block` and `login_required` last.

Beside them, the newest site exploration of the domain (its WebsiteMem, seed 001 §2.3) gives
a few bookmarks and the menus it learned (workers/agent/memory/site_map.py).

Everything here that came from a page (element names, fact values, URLs, page titles) is
data, never an instruction: `render_site` output is shown to models only inside the
untrusted fence (workers/agent/context/blocks.py `fenced`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from workers.agent import textcut
from workers.agent.memory import route_values
from workers.agent.memory.approval_memory import AskedBefore, remembered
from workers.agent.memory.site_map import SiteMap

URL_TEMPLATES, POPUPS, FACTS, CHALLENGES = "url_templates", "popups", "facts", "challenges"
ROUTE = "route"
BOT_PROTECTED, CLICK_TIER = "bot_protected", "click_tier"
MAX_TEMPLATES, MAX_POPUPS, MAX_FACTS = 20, 5, 20
LIST_CHARS = 120
BRIEF_TEMPLATES = 3  # the Worker's brief view names at most this many URL patterns

# seed 000 §5.2 cause tags (plus `timeout` / `login_required`) -> hours a dead end blocks later
# runs; None: it lasts until the site is forgotten (DELETE /v1/domains/{domain}/learnings)
DEAD_END_TTL_HOURS: Mapping[str, float | None] = {
    "network": 6,
    "timeout": 6,
    "rate_limit": 1,
    "handoff_timeout": 24,
    "bot_block": 72,
    "stale_selector": 24 * 7,
    "postcondition_miss": 24 * 14,
    "generic": 24 * 7,
    "policy_block": None,
    "login_required": None,
}
_ID_LIKE = re.compile(r"^(?:\d+|[0-9a-f]{8,}|[0-9a-f-]{32,36})$", re.I)
_WORD = re.compile(r"[a-z0-9]+")


# page text that speaks to the agent instead of stating a value (issue 32 item 5): never a fact
_ADDRESSED = re.compile(
    r"\b(?:ignore|disregard|forget|override)\b.{0,40}\b(?:instructions?|prompts?|rules?|tasks?)\b"
    r"|\b(?:system|admin(?:istrator)?|developer)\s+(?:note|message|prompt|instruction|override)"
    r"|\b(?:you|agents?|assistants?|models?|ai)\s+"
    r"(?:must|should|shall|need to|are (?:now|required))\b"
    r"|\b(?:type|enter|paste|send|reveal|share|submit)\b.{0,30}"
    r"\b(?:api[ _-]?keys?|passwords?|secrets?|tokens?|credentials?)\b"
    r"|\b(?:new|updated|previous|prior)\s+instructions?\b"
    r"|\bimportant\b\s*[:!]",
    re.I | re.S,
)
MAX_FACT_CHARS = 200


def addressed_to_agent(text: str) -> bool:
    """Does this text read as an instruction to the agent (prompt injection), not a value?"""
    return bool(_ADDRESSED.search(" ".join(str(text).split())))


def fact_seen(value: str, page_text: str) -> bool:
    """A fact the run verified: a short value whose every word and number the page it was
    recorded on showed (the model's paraphrase of a page, or text it made up, is not one)."""
    words = _WORD.findall(value.lower())
    if not words or len(value) > MAX_FACT_CHARS:
        return False
    shown = set(_WORD.findall(page_text.lower()))
    return all(w in shown for w in words)


def fact_intent(instruction: str) -> str:
    """A task's intent for its facts: its words with the values it names blanked (quoted
    text, numbers, capitalised names), so the same task with other values shares them."""
    words = []
    for i, token in enumerate(route_values.tokens(instruction)):
        named = token.kind == "word" and i > 0 and token.text[:1].isupper() and token.candidate
        words.append("{}" if token.kind in ("quoted", "number") or named else token.norm)
    return " ".join(words)


def dead_end_expiry(cause: str, last_seen: datetime) -> datetime | None:
    """When a dead end with this cause, last seen then, stops blocking later runs."""
    hours = DEAD_END_TTL_HOURS.get(cause, DEAD_END_TTL_HOURS["generic"])
    return None if hours is None else last_seen + timedelta(hours=hours)


# --- URL grammar (seed 000 §6.5) --------------------------------------------------------------


@dataclass(frozen=True)
class UrlTemplate:
    """A URL shape on one host: path segments (None = a slot that carried state), the query
    parameter names that carried state (slots) and the parameters fixed to one value."""

    segments: tuple[str | None, ...]
    params: tuple[str, ...] = ()
    fixed: tuple[tuple[str, str], ...] = ()  # (name, value): the same in every learned URL

    @property
    def pattern(self) -> str:
        path = "/" + "/".join("{}" if s is None else s for s in self.segments)
        parts = [(p, "*") for p in self.params] + list(self.fixed)
        query = "&".join(f"{p}={v}" for p, v in sorted(parts))
        return f"{path}?{query}" if query else path

    @classmethod
    def parse(cls, pattern: str) -> UrlTemplate:
        path, _, query = pattern.partition("?")
        segments = tuple(None if s == "{}" else s for s in path.strip("/").split("/") if s)
        pairs = [(*p.split("=", 1), "*")[:2] for p in query.split("&") if p]
        params = tuple(sorted(k for k, v in pairs if v == "*"))
        fixed = tuple(sorted((k, v) for k, v in pairs if v != "*"))
        return cls(segments, params, fixed)

    def matches(self, url: str) -> bool:
        """True when url has this shape: same literal segments, slots anywhere they stand,
        only query parameters the template knows, fixed ones with their value."""
        segments, params = _split(url)
        if len(segments) != len(self.segments):
            return False
        if any(
            t is not None and t != s.lower() for t, s in zip(self.segments, segments, strict=True)
        ):
            return False
        fixed = dict(self.fixed)
        if not set(params) <= set(self.params) | set(fixed):
            return False
        values = _query(url)
        return all(values.get(k, v) == v for k, v in fixed.items())


def _split(url: str) -> tuple[list[str], list[str]]:
    parts = urlsplit(url)
    segments = [unquote(s) for s in parts.path.strip("/").split("/") if s]
    params = sorted({k for k, _ in parse_qsl(parts.query, keep_blank_values=True)})
    return segments, params


def _query(url: str) -> dict[str, str]:
    return dict(parse_qsl(urlsplit(url).query, keep_blank_values=True))


def shape_of(url: str) -> UrlTemplate | None:
    """The template a reached URL with query parameters proves: its path, its parameters
    (None for a URL without query: it carries no filter state)."""
    if urlsplit(url).scheme not in ("http", "https"):
        return None
    segments, params = _split(url)
    return UrlTemplate(tuple(s.lower() for s in segments), tuple(params)) if params else None


def _slug_words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def task_values(instruction: str) -> set[str]:
    """Words of the values a task names in a way a path can carry: quoted text, numbers,
    names written with a capital inside the sentence (a city, a product); a plain word of
    the sentence ("shop", "kettles") is the task's wording, not a value."""
    found: set[str] = set()
    for i, token in enumerate(route_values.tokens(instruction)):
        named = token.kind == "word" and i > 0 and token.text[:1].isupper()
        if token.kind in ("quoted", "number") or (named and token.candidate):
            found |= _slug_words(token.text)
    return found


def _spells(value: str, words: set[str]) -> bool:
    found = _WORD.findall(value.lower())
    return bool(found) and all(w in words for w in found) and max(map(len, found)) > 2


def _carries_state(segment: str, values: set[str]) -> bool:
    """A path segment that is an id or spells a value the task gave (a city, a product)."""
    return bool(_ID_LIKE.match(segment)) or _spells(segment, values)


def _varying(split: Sequence[tuple[list[str], list[str]]], segments: list[str]) -> list[bool]:
    """The segments that differ from another reached URL of the same shape under the same
    first segment (the rest equal)."""
    slots = [False] * len(segments)
    for other, _ in split:
        if len(other) == len(segments) > 1 and other != segments:
            differs = [a.lower() != b.lower() for a, b in zip(segments, other, strict=True)]
            if sum(differs) == 1 and not differs[0]:
                slots = [s or d for s, d in zip(slots, differs, strict=True)]
    return slots


def learn_templates(urls: Iterable[str], instruction: str = "") -> list[UrlTemplate]:
    """Templates for the URLs a run reached that carried state (seed 000 §6.5: "the location
    as a path segment, the filters as query parameters"). A segment is a slot when it is an
    id, spells a value the task gave (`task_values`), or differs between reached URLs of the
    same shape under the same first segment (the rest equal); a query parameter is a slot when
    its value spells a word of the task or differs between reached URLs of the same path,
    else it stays fixed to its value. URLs that carried no state give none."""
    values, task_words = task_values(instruction), _slug_words(instruction)
    norms = {t.norm for t in route_values.tokens(instruction)}
    kept = [u for u in dict.fromkeys(urls) if urlsplit(u).scheme in ("http", "https")]
    split = [_split(u) for u in kept]
    queries = [_query(u) for u in kept]
    templates: dict[str, UrlTemplate] = {}
    for (segments, params), query in zip(split, queries, strict=True):
        varying = _varying(split, segments)
        slots = [v or _carries_state(s, values) for s, v in zip(segments, varying, strict=True)]
        same_path = [q for (s, _), q in zip(split, queries, strict=True) if s == segments]
        slot_params = tuple(
            p
            for p in params
            if _spells(query[p], task_words)
            or " ".join(query[p].lower().split()) in norms
            or len({q[p] for q in same_path if p in q}) > 1
        )
        if not any(slots) and not slot_params:
            continue
        template = UrlTemplate(
            tuple(None if slot else s.lower() for s, slot in zip(segments, slots, strict=True)),
            slot_params,
            tuple(sorted((p, query[p]) for p in params if p not in slot_params)),
        )
        templates.setdefault(template.pattern, template)
    return list(templates.values())


def merge_templates(
    stored: Any, learned: Sequence[UrlTemplate], *, example: Mapping[str, str], when: str, run: str
) -> list[dict[str, Any]]:
    """The stored `url_templates` value with this run's templates counted in (newest first,
    at most MAX_TEMPLATES)."""
    rows = {r["pattern"]: dict(r) for r in _rows(stored) if isinstance(r.get("pattern"), str)}
    for template in learned:
        row = rows.get(template.pattern, {"pattern": template.pattern, "hits": 0, "runs": []})
        row["hits"] = int(row.get("hits", 0)) + 1
        row["last_seen"] = when
        row["example"] = example.get(template.pattern, row.get("example", ""))
        row["runs"] = [run, *[r for r in row.get("runs", []) if r != run]][:5]
        rows[template.pattern] = row
    ordered = sorted(rows.values(), key=lambda r: str(r.get("last_seen", "")), reverse=True)
    return ordered[:MAX_TEMPLATES]


def _constant(template: UrlTemplate, row: Mapping[str, Any]) -> UrlTemplate:
    """A template's fixed query values as read back: kept only when at least two runs saw
    the same value (issue 34: `part=FA-1042` of one run is that run's value, not the site's)."""
    runs = row.get("runs")
    if isinstance(runs, list) and len(set(map(str, runs))) >= 2:
        return template
    params = tuple(sorted({*template.params, *(k for k, _ in template.fixed)}))
    return UrlTemplate(template.segments, params)


def _rows(value: Any) -> list[Mapping[str, Any]]:
    return [r for r in value if isinstance(r, Mapping)] if isinstance(value, list) else []


# --- the learnings as the agent reads them -------------------------------------------------------


@dataclass(frozen=True)
class SiteMemory:
    """One domain's learnings, parsed (unknown or malformed keys are ignored)."""

    domain: str
    templates: tuple[UrlTemplate, ...] = ()
    popups: tuple[Mapping[str, Any], ...] = ()
    facts: tuple[Mapping[str, Any], ...] = ()
    bot_protected: bool = False
    click_tier: str = ""
    route: str = ""
    route_confidence: float = 0.0
    extra: Mapping[str, Any] = field(default_factory=dict)
    site_map: SiteMap = field(default_factory=SiteMap)  # from the newest site exploration
    approvals: tuple[AskedBefore, ...] = ()  # actions a person was asked about (issue 34)

    @classmethod
    def of(
        cls, domain: str, learnings: Mapping[str, Any], site_map: SiteMap | None = None
    ) -> SiteMemory:
        templates = []
        for row in _rows(learnings.get(URL_TEMPLATES)):
            if isinstance(row.get("pattern"), str):
                templates.append(_constant(UrlTemplate.parse(row["pattern"]), row))
        route = learnings.get(ROUTE)
        tier = learnings.get(CLICK_TIER)
        wins = tier.get("wins") if isinstance(tier, Mapping) else None
        best = ""
        if isinstance(wins, Mapping) and wins:
            best = str(max(wins, key=lambda k: int(wins[k]) if isinstance(wins[k], int) else 0))
        return cls(
            domain=domain,
            templates=tuple(templates),
            popups=tuple(_rows(learnings.get(POPUPS)))[:MAX_POPUPS],
            facts=tuple(f for f in _rows(learnings.get(FACTS)) if not _poisoned(f))[:MAX_FACTS],
            bot_protected=learnings.get(BOT_PROTECTED) is True,
            click_tier=best,
            route=str(route.get("kind", "")) if isinstance(route, Mapping) else "",
            route_confidence=float(route.get("confidence") or 0)
            if isinstance(route, Mapping)
            else 0,
            site_map=site_map or SiteMap(),
            approvals=remembered(learnings),
        )

    @property
    def empty(self) -> bool:
        return (
            not (self.templates or self.popups or self.facts or self.bot_protected)
            and self.site_map.empty
        )

    def scoped(self, instruction: str, url: str) -> SiteMemory:
        """Issue 34 "Scope": only the facts of this task's intent or of the page it entered
        the site on (that page's path or one under it; a fact of the site's root page only
        by intent), never every fact learned on the host."""
        intent, path = fact_intent(instruction), urlsplit(url).path.rstrip("/")

        def belongs(fact: Mapping[str, Any]) -> bool:
            if fact.get("intent") and fact.get("intent") == intent:
                return True
            where = urlsplit(str(fact.get("url") or "")).path.rstrip("/")
            return bool(where) and (path == where or path.startswith(where + "/"))

        return replace(self, facts=tuple(f for f in self.facts if belongs(f)))

    def template_for(self, url: str) -> UrlTemplate | None:
        return next((t for t in self.templates if t.matches(url)), None)


def _poisoned(fact: Mapping[str, Any]) -> bool:
    return addressed_to_agent(f"{fact.get('key', '')} {fact.get('value', '')}")


def _clip(text: Any, limit: int = LIST_CHARS) -> str:
    line = " ".join(str(text).split())
    return textcut.clip(line, limit)


def _age(when: Any, now: datetime) -> str:
    try:
        seen = datetime.fromisoformat(str(when))
    except ValueError:
        return "age unknown"
    if seen.tzinfo is None:
        seen = seen.replace(tzinfo=UTC)
    hours = max(0.0, (now - seen).total_seconds() / 3600)
    return f"{hours:.0f} h old" if hours < 48 else f"{hours / 24:.0f} days old"


def render_site(memory: SiteMemory, now: datetime | None = None, *, brief: bool = False) -> str:
    """Plain lines for a prompt (the caller fences them as untrusted page-derived text)."""
    now = now or datetime.now(UTC)
    lines: list[str] = []
    patterns = [t.pattern for t in memory.templates]
    if patterns:
        shown = patterns[:BRIEF_TEMPLATES] if brief else patterns
        lines.append("URL patterns reached before ({} = a value): " + ", ".join(shown))
    if memory.bot_protected:
        lines.append("bot-protected site: a challenge or bot wall was seen here")
    for popup in memory.popups[: 1 if brief else MAX_POPUPS]:
        lines.append(
            f"{_clip(popup.get('kind', 'popup'), 20)} banner dismissed with "
            f"{_clip(popup.get('action', 'click'), 20)} {_clip(popup.get('name', ''), 60)!r}"
        )
    lines += memory.site_map.lines(brief=brief)
    if brief:
        return "\n".join(lines)
    for fact in memory.facts:
        lines.append(
            f"fact {_clip(fact.get('key', ''), 60)}: {_clip(fact.get('value', ''))} "
            f"(from {_clip(fact.get('url', ''), 80)}, {_age(fact.get('seen'), now)})"
        )
    return "\n".join(lines)


# --- consent banners ------------------------------------------------------------------------------

_CONSENT_PAGE = re.compile(r"\b(?:cookies?|consent|gdpr|privacy (?:settings|preferences))\b", re.I)
_CONSENT_BUTTON = re.compile(
    r'^(?:button|link)\s+"(?:accept(?: all)?(?: cookies)?|allow(?: all)?(?: cookies)?|'
    r"agree|i agree|i accept|got it|ok(?:ay)?|reject all|decline(?: all)?|"
    r'only (?:necessary|essential)(?: cookies)?|continue without accepting)"$',
    re.I,
)


def consent_dismissal(label: str, page_text: str) -> dict[str, str] | None:
    """The popups learning for a click on `label` (`button "Accept all"`) on a page that
    showed a cookie / consent banner, or None when it was not one."""
    if not _CONSENT_BUTTON.match(label.strip()) or not _CONSENT_PAGE.search(page_text):
        return None
    name = label.split('"', 1)[1].rsplit('"', 1)[0]
    return {"kind": "consent", "action": "click", "role": label.split()[0].lower(), "name": name}
