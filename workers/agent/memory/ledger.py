"""The structured Ledger: the agent's bounded working memory (seed 000 §5.2, App. E.1 eq. 2).

Slots as the paper lists them: goal (immutable), plan, subgoal, recent (deque of the last
3 StepOutcomes; older ones are archived, never deleted), facts (key -> value with category,
confidence and source step, rendered most-recently-referenced first), dead_ends (negative
landmarks with a cause tag), checkpoints, episodic notes; plus the Planner's checklist of
seed 004 §3.2 (2-6 atomic items, pending / in_progress / completed / failed) and the running
summary of seed 004 §3.4 (adaptive memory).

Every mutation is also written to a journal that the loop drains (`drain()`) to persist it
through a MemoryStore and to emit `fact.recorded` / `dead_end.recorded` events, so code that
only holds the Ledger (the eviction phases) can add entries without knowing about either.
`semantic_size()` is ||L||_sem of App. E.2 eq. 6: eviction may only grow it.
"""

from __future__ import annotations

import hashlib
import re
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Literal, get_args
from urllib.parse import urlsplit

FactCategory = Literal[
    "observation", "constraint", "preference", "identity", "credential", "derived"
]
DeadEndCause = Literal[
    "network",
    "bot_block",
    "stale_selector",
    "postcondition_miss",
    "policy_block",
    "rate_limit",
    "handoff_timeout",
    "generic",
    "timeout",  # transient like network (issue 21: expiry by cause)
    "login_required",  # lasts, like policy_block
]
ChecklistStatus = Literal["pending", "in_progress", "completed", "failed"]
ChangeKind = Literal["step", "fact", "dead_end", "checkpoint", "episodic", "plan", "checklist"]

FACT_CATEGORIES: tuple[str, ...] = get_args(FactCategory)
DEAD_END_CAUSES: tuple[str, ...] = get_args(DeadEndCause)
CHECKLIST_STATUSES: tuple[str, ...] = get_args(ChecklistStatus)
RECENT_STEPS = 3  # |recent| (seed 000 §5.2)
ROUTE_REPLAYED = "route_replayed"  # the checkpoint kind of a replayed route (replay.py)
CHECKLIST_MIN, CHECKLIST_MAX = 2, 6  # seed 004 §3.2
CHECKLIST_ITEM_WORDS = 10


@dataclass(frozen=True)
class StepOutcome:
    """One Worker step as the Ledger keeps it: what was tried, how it went, what it meant."""

    step: int
    url: str
    actions: tuple[str, ...] = ()  # one line per call: `click(ref=3:4) -> ok, page changed`
    success: bool = True  # every executed call succeeded
    error: str | None = None  # the first failure's error code
    reason: str = ""  # the first failure's reason text (capped; the reflection reads it)
    evaluation: str = ""  # the Worker's evaluation_previous_goal
    memory: str = ""  # the Worker's memory note
    next_goal: str = ""


@dataclass(frozen=True)
class Fact:
    key: str
    value: str
    category: FactCategory = "observation"
    confidence: float = 1.0
    source_step: int = 0
    referenced: int = 0  # logical clock of the last write or read; higher renders first


@dataclass(frozen=True)
class DeadEnd:
    """A negative landmark: a one-line account of what failed, where, and why."""

    description: str
    url: str
    cause: DeadEndCause = "generic"
    step: int = 0
    signature: str = ""  # the failing action, so the loop can tell a repeat
    target: str = ""  # the element the failing action touched (`button "Buy"`), page text
    count: int = 1  # how often it happened (earlier runs' dead ends carry their count)
    earlier: bool = False  # remembered from an earlier run, not seen in this one
    state: str = ""  # digest of the page state it failed in ("": any); issue 27 item 2

    @property
    def domain(self) -> str:
        return domain_of(self.url)

    @property
    def key(self) -> tuple[str, str]:
        """(page, action): one dead end however often it is recorded or loaded."""
        return page_of(self.url), self.signature or self.description


@dataclass(frozen=True)
class Checkpoint:
    """A progress landmark (navigation, login, filter applied, item added)."""

    kind: str
    description: str
    url: str
    step: int


@dataclass(frozen=True)
class EpisodicNote:
    text: str
    step: int
    kind: str = "note"  # note | summary | archive | reflection


@dataclass(frozen=True)
class ChecklistItem:
    id: int
    text: str
    status: ChecklistStatus = "pending"


@dataclass(frozen=True)
class LedgerChange:
    """One journal entry: which slot changed and the entry written to it."""

    kind: ChangeKind
    entry: Any


def domain_of(url: str) -> str:
    """The lower-cased host of a URL, '' for URLs without one."""
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return ""
    return host.rstrip(".").lower()


def page_of(url: str) -> str:
    """Host and path of a URL (no query, fragment or trailing slash): a dead end's page."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    return f"{(parts.hostname or '').lower()}{parts.path.rstrip('/') or '/'}"


_REF_VERSION = re.compile(r"\[\d+:(\d+)\]")
LED_NOWHERE = "postcondition_miss"


def page_fingerprint(text: str) -> str:
    """A digest of what the page shows, without the snapshot version in its refs."""
    return hashlib.sha1(_REF_VERSION.sub(r"[\1]", text).encode()).hexdigest()[:16]


def _same_page(a: str, b: str) -> bool:
    """URLs compared without fragment or trailing slash."""
    return a.split("#", 1)[0].rstrip("/") == b.split("#", 1)[0].rstrip("/")


@dataclass
class Ledger:
    goal: str
    plan: tuple[str, ...] = ()
    subgoal: str = ""
    recent: deque[StepOutcome] = field(default_factory=lambda: deque(maxlen=RECENT_STEPS))
    archive: list[StepOutcome] = field(default_factory=list)  # steps that left `recent`
    facts: dict[str, Fact] = field(default_factory=dict)
    dead_ends: list[DeadEnd] = field(default_factory=list)
    # earlier runs' dead ends on the domains this run entered, by (page, action) (issue 21)
    remembered: dict[tuple[str, str], DeadEnd] = field(default_factory=dict)
    # per-domain learnings of earlier runs, parsed (workers/agent/memory/site_memory.py), by domain
    sites: dict[str, Any] = field(default_factory=dict)
    checkpoints: list[Checkpoint] = field(default_factory=list)
    episodic: list[EpisodicNote] = field(default_factory=list)
    checklist: tuple[ChecklistItem, ...] = ()
    summary: str = ""  # adaptive memory's running summary M_k (seed 004 §3.4)
    plan_step: int = 0  # the step the plan and subgoal were set at (views show their age)
    _clock: int = 0
    _journal: list[LedgerChange] = field(default_factory=list, repr=False)

    # -- steps ---------------------------------------------------------------------------
    @property
    def all_steps(self) -> list[StepOutcome]:
        """The whole trajectory so far: archived steps then the recent window."""
        return [*self.archive, *self.recent]

    def record_step(self, outcome: StepOutcome) -> StepOutcome | None:
        """Append to `recent`; the step that falls off the front is archived and returned."""
        dropped = self.recent[0] if len(self.recent) == RECENT_STEPS else None
        if dropped is not None:
            self.archive.append(dropped)
        self.recent.append(outcome)
        self._log("step", outcome)
        return dropped

    # -- facts ---------------------------------------------------------------------------
    def record_fact(
        self,
        key: str,
        value: str,
        *,
        category: str = "observation",
        confidence: float = 1.0,
        step: int = 0,
    ) -> Fact:
        if category not in FACT_CATEGORIES:
            category = "observation"
        fact = Fact(
            key=key.strip(),
            value=value.strip(),
            category=category,  # type: ignore[arg-type]
            confidence=max(0.0, min(1.0, float(confidence))),
            source_step=step,
            referenced=self._tick(),
        )
        self.facts[fact.key] = fact
        self._log("fact", fact)
        return fact

    def reference_fact(self, key: str) -> Fact | None:
        """Mark a fact as just used, moving it to the front of the rendering order."""
        fact = self.facts.get(key)
        if fact is not None:
            fact = self.facts[key] = replace(fact, referenced=self._tick())
        return fact

    def facts_by_recency(self, limit: int | None = None) -> list[Fact]:
        ordered = sorted(self.facts.values(), key=lambda f: f.referenced, reverse=True)
        return ordered if limit is None else ordered[:limit]

    # -- dead ends -----------------------------------------------------------------------
    def mark_dead_end(
        self,
        description: str,
        url: str,
        cause: str = "generic",
        *,
        step: int = 0,
        signature: str = "",
        target: str = "",
        state: str = "",
    ) -> DeadEnd | None:
        """Add a dead end; returns None when the same (url, signature or description) exists."""
        if cause not in DEAD_END_CAUSES:
            cause = "generic"
        dead_end = DeadEnd(
            " ".join(description.split()),
            url,
            cause,  # type: ignore[arg-type]
            step,
            signature,
            target,
            state=state,
        )
        if any(self._same_dead_end(d, dead_end) for d in self.dead_ends):
            return None
        self.dead_ends.append(dead_end)
        self._log("dead_end", dead_end)
        return dead_end

    def load_dead_ends(self, dead_ends: Iterable[DeadEnd]) -> int:
        """Remember dead ends of earlier runs (not journalled, kept apart from this run's:
        `earlier`); one per (page, action), their counts added up."""
        added = 0
        for dead_end in dead_ends:
            known = self.remembered.get(dead_end.key)
            count = dead_end.count + (known.count if known else 0)
            self.remembered[dead_end.key] = replace(dead_end, earlier=True, count=count)
            added += known is None
        return added

    def dead_ends_for(self, url: str) -> list[DeadEnd]:
        """This run's dead ends on the current page (the Worker's view, seed 000 eq. 16)."""
        return [d for d in self.dead_ends if _same_page(d.url, url)]

    def relevant_dead_ends(
        self, url: str, page_text: str = "", *, whole_run: bool = False
    ) -> list[DeadEnd]:
        """This run's dead ends on the page (all of them with `whole_run`, the Planner's
        view) and earlier runs' only where they apply here: the same URL path, and an action
        whose target element is on the current page. Each (page, action) once, with a count."""
        here, text = page_of(url), page_text.lower()
        chosen: dict[tuple[str, str], DeadEnd] = {}
        for d in self.dead_ends:
            if whole_run or _same_page(d.url, url):
                prior = chosen.get(d.key)
                chosen[d.key] = replace(d, count=d.count + (prior.count if prior else 0))
        shown = page_fingerprint(page_text) if page_text else ""
        for key, d in self.remembered.items():
            if page_of(d.url) != here or (d.target and d.target.lower() not in text):
                continue
            if d.cause == LED_NOWHERE and d.state and shown and d.state != shown:
                continue  # issue 34: the page changed since it led nowhere: tried again
            prior = chosen.get(key)
            chosen[key] = replace(prior, count=prior.count + d.count) if prior else d
        return list(chosen.values())

    def is_dead_end(self, url: str, signature: str, state: str = "") -> bool:
        """This action failed on this page before, in this run or an unexpired earlier one;
        not when the page's state has changed since (issue 27 item 2: a new answer typed
        before the same submit is no repeat)."""
        known = (*self.dead_ends, *self.remembered.values())
        return any(
            d.signature == signature
            and _same_page(d.url, url)
            and (not d.state or not state or d.state == state)
            for d in known
        )

    @staticmethod
    def _same_dead_end(a: DeadEnd, b: DeadEnd) -> bool:
        if not _same_page(a.url, b.url):
            return False
        if a.signature or b.signature:
            return a.signature == b.signature
        return a.description == b.description

    # -- checkpoints, episodic notes -----------------------------------------------------
    def add_checkpoint(self, kind: str, description: str, url: str, step: int) -> Checkpoint:
        checkpoint = Checkpoint(kind, description, url, step)
        self.checkpoints.append(checkpoint)
        self._log("checkpoint", checkpoint)
        return checkpoint

    def note(self, text: str, step: int, kind: str = "note") -> EpisodicNote:
        note = EpisodicNote(text, step, kind)
        self.episodic.append(note)
        self._log("episodic", note)
        return note

    # -- Planner-owned slots -------------------------------------------------------------
    def set_plan(self, plan: Sequence[str], subgoal: str | None = None, step: int = 0) -> None:
        self.plan = tuple(s.strip() for s in plan if s.strip())
        self.plan_step = step
        if subgoal is not None:
            self.subgoal = subgoal.strip()
        elif self.plan and not self.subgoal:
            self.subgoal = self.plan[0]
        self._log("plan", (self.plan, self.subgoal))

    def set_checklist(self, items: Sequence[str]) -> tuple[ChecklistItem, ...]:
        """Seed 004 §3.2 refinement: dedupe, cap at 10 words, 2-6 items, all pending."""
        self.checklist = tuple(
            ChecklistItem(i, text) for i, text in enumerate(refine_checklist(items), 1)
        )
        self._log("checklist", self.checklist)
        return self.checklist

    def update_checklist_item(self, item_id: int, status: str) -> ChecklistItem | None:
        """Exactly one item changes per call (seed 004 §3.2 eq. 1)."""
        if status not in CHECKLIST_STATUSES:
            return None
        items = list(self.checklist)
        for index, item in enumerate(items):
            if item.id == item_id:
                if item.status == status:
                    return item
                items[index] = replace(item, status=status)  # type: ignore[arg-type]
                self.checklist = tuple(items)
                self._log("checklist", self.checklist)
                return items[index]
        return None

    def checklist_done(self) -> bool:
        return bool(self.checklist) and all(i.status == "completed" for i in self.checklist)

    # -- bookkeeping ---------------------------------------------------------------------
    def semantic_size(self) -> int:
        """||L||_sem (seed 000 App. E.2 eq. 6)."""
        return (
            len(self.facts)
            + len(self.dead_ends)
            + len(self.checkpoints)
            + len(self.episodic)
            + len(self.archive)
            + len(self.recent)
        )

    def drain(self) -> list[LedgerChange]:
        """The changes since the last drain, oldest first."""
        changes, self._journal = self._journal, []
        return changes

    def _tick(self) -> int:
        self._clock += 1
        return self._clock

    def _log(self, kind: ChangeKind, entry: Any) -> None:
        self._journal.append(LedgerChange(kind, entry))

    # -- persistence ---------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """JSON-safe snapshot (the ledger row); `from_dict(to_dict())` restores it."""
        return {
            "goal": self.goal,
            "plan": list(self.plan),
            "subgoal": self.subgoal,
            "recent": [asdict(s) for s in self.recent],
            "archive": [asdict(s) for s in self.archive],
            "facts": [asdict(f) for f in self.facts_by_recency()],
            "dead_ends": [asdict(d) for d in self.dead_ends],
            "remembered": [asdict(d) for d in self.remembered.values()],
            "checkpoints": [asdict(c) for c in self.checkpoints],
            "episodic": [asdict(n) for n in self.episodic],
            "checklist": [asdict(i) for i in self.checklist],
            "summary": self.summary,
            "plan_step": self.plan_step,
            "clock": self._clock,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Ledger:
        ledger = cls(goal=str(data.get("goal", "")))
        ledger.plan = tuple(data.get("plan", ()))
        ledger.subgoal = str(data.get("subgoal", ""))
        ledger.recent.extend(step_from_dict(s) for s in data.get("recent", ()))
        ledger.archive = [step_from_dict(s) for s in data.get("archive", ())]
        facts = [Fact(**f) for f in data.get("facts", ())]
        ledger.facts = {f.key: f for f in sorted(facts, key=lambda f: f.referenced)}
        ledger.dead_ends = [DeadEnd(**d) for d in data.get("dead_ends", ())]
        remembered = [DeadEnd(**d) for d in data.get("remembered", ())]
        ledger.remembered = {d.key: d for d in remembered}
        ledger.checkpoints = [Checkpoint(**c) for c in data.get("checkpoints", ())]
        ledger.episodic = [EpisodicNote(**n) for n in data.get("episodic", ())]
        ledger.checklist = tuple(ChecklistItem(**i) for i in data.get("checklist", ()))
        ledger.summary = str(data.get("summary", ""))
        ledger.plan_step = int(data.get("plan_step", 0))
        ledger._clock = int(data.get("clock", max((f.referenced for f in facts), default=0)))
        return ledger


def step_from_dict(data: Mapping[str, Any]) -> StepOutcome:
    values = dict(data)
    values["actions"] = tuple(values.get("actions", ()))
    return StepOutcome(**values)


def refine_checklist(items: Iterable[str]) -> list[str]:
    """Split compound items, dedupe, trim to 10 words, keep 2-6 (seed 004 §3.2)."""
    refined: list[str] = []
    seen: set[str] = set()
    for raw in items:
        for part in str(raw).replace(";", "\n").splitlines():
            words = part.strip(" -*•\t").split()
            text = " ".join(words[:CHECKLIST_ITEM_WORDS])
            key = text.lower().rstrip(".")
            if text and key not in seen:
                seen.add(key)
                refined.append(text)
    if len(refined) < CHECKLIST_MIN:
        return list(FALLBACK_CHECKLIST)
    return refined[:CHECKLIST_MAX]


# used when the model gives no usable checklist (seed 004 §3.2: hardcoded fallback)
FALLBACK_CHECKLIST = ("Carry out the task's required actions", "Confirm the task's result")
