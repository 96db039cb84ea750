"""The loop's memory hook and Planner cadence (seed 000 §4.1, §5; seed 004 §3.2, §3.4).

`Brain` holds what the browser loop adds around the Worker:
- when the Planner runs (Algorithm 1 line 10: every N steps, N = PLANNER_EVERY_N_STEPS,
  default 4, counted from the Planner's last call, so an early call after
  `failures_before_review` failed steps in a row or on a completion claim is not followed
  by a periodic one on the next step; the periodic call only when the steps since the last
  show a loop or a standstill, roles/cadence.py; optionally at start) and seed 001 App. A.4's
  verification pass, on every success claim (issue 22), bounded: after `max_rejections`
  rejected claims the run ends failed with the Planner's reason;
- the seed 004 §3.2 checklist from the start: the Worker's first turn writes its 2-6 items
  (issue 22 measured this against a Planner call at start: docs/benchmarks.md), and the
  Planner's first call writes it when the Worker did not;
- Ingest: each step's StepOutcome, the Worker's facts, one checklist update per step, a
  dead end when the Worker reports that its previous move led nowhere, navigation
  checkpoints, and the adaptive memory of seed 004 §3.4;
- the eviction pass before every model call (seed 000 Algorithm 3, `memory.evicted`);
- persistence: the Ledger's journal goes to the MemoryStore after each step (snapshot
  rewritten; steps, facts, episodic notes appended; dead ends stored per domain) with
  `fact.recorded` / `dead_end.recorded` events; a new run loads its domain's dead ends.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from app.contracts import EventType
from workers.agent import textcut
from workers.agent.context.eviction import evict
from workers.agent.context.history import ExecutedCall, LedgerHistory, Message, RunClock
from workers.agent.context.memory import AdaptiveMemory, MemoryConfig
from workers.agent.context.views import render_worker, worker_view
from workers.agent.judge.evidence import EvidenceLog
from workers.agent.memory.ledger import (
    LED_NOWHERE,
    DeadEnd,
    Fact,
    Ledger,
    LedgerChange,
    StepOutcome,
    domain_of,
    page_fingerprint,
)
from workers.agent.memory.site_map import SiteMap
from workers.agent.memory.site_memory import SiteMemory, render_site
from workers.agent.people import guidance
from workers.agent.protocols import (
    LLM,
    Action,
    AgentTask,
    EventSink,
    MemoryStore,
    Observation,
)
from workers.agent.replay.replay_vouch import VERIFIED_BY
from workers.agent.roles.cadence import Progress
from workers.agent.roles.planner import (
    PLANNER,
    CompletionClaim,
    Planner,
    PlannerVerdict,
    render_planner_view,
)
from workers.agent.roles.worker import WORKER, WorkerNotes
from workers.agent.testing import InMemoryMemoryStore
from workers.agent.tools import DONE, is_page_changing

LABEL_CHARS = 80
RECORD_FACT = "record_fact"
HELD_STEPS = 1  # dead ends of the last steps wait this many steps before they are written
_FAILED_EVALUATION = re.compile(r"^\s*(?:failed|failure|did not work|unsuccessful)\b", re.I)


GUIDANCE = "guidance"  # plan.updated trigger of the directives a run starts from


class Trigger(StrEnum):
    start = "start"
    periodic = "periodic"
    failures = "failures"
    completion = "completion"


@dataclass(frozen=True)
class BrainConfig:
    planner_every_n_steps: int = 4  # N of Algorithm 1 (PLANNER_EVERY_N_STEPS)
    failures_before_review: int = 2  # failed steps in a row that call the Planner early
    planner_at_start: bool = False  # a Planner call before the first Worker step
    max_rejections: int = 2  # K: rejected completion claims before the run ends failed
    lookup_page_tokens: int = 3000  # a read-only lookup's page text cap (LOOKUP_PAGE_TOKENS)
    planner: bool = True  # False: the browser route runs the Worker alone (run_worker_only)
    # True: the periodic review calls the Planner whatever the steps show (issue 33 measured
    # it); False: only when the steps since its last call show a loop or a standstill
    review_when_progressing: bool = False
    summarizer_calls: bool = False  # adaptive memory's own model calls (context/memory.py)


def element_label(page_text: str, ref: str) -> str:
    """`role "name"` of the element with this ref in the snapshot text ('' if absent)."""
    match = re.search(
        rf'^\s*\[{re.escape(ref)}\]\s+([\w-]+)(?:\s+("(?:[^"\\]|\\.)*"))?', page_text, re.M
    )
    if not match:
        return ""
    return f"{match[1]} {match[2]}" if match[2] else match[1]


def describe_action(action: Action, page_text: str) -> tuple[str, str]:
    """(one-line description, signature) of an action, by element name rather than ref, so
    a dead end still matches on the next snapshot version and in a later run."""
    args = dict(action.args)
    target = element_label(page_text, str(args.pop("ref"))) if "ref" in args else ""
    if action.name == "type" and args.get("secret"):
        args["text"] = "***"
    rest = ", ".join(f"{k}={textcut.cut(str(v), LABEL_CHARS)}" for k, v in sorted(args.items()))
    description = " ".join(p for p in (action.name, target, rest and f"({rest})") if p)
    return description, description.lower()


def _fact_event(fact: Fact, step: int) -> dict[str, Any]:
    value = "***" if fact.category == "credential" else fact.value
    return {
        "step": step,
        "key": fact.key,
        "value": value,
        "category": fact.category,
        "confidence": fact.confidence,
        "source_step": fact.source_step,
    }


def _dead_end_event(dead_end: DeadEnd, step: int) -> dict[str, Any]:
    return {
        "step": step,
        "description": dead_end.description,
        "url": dead_end.url,
        "cause": dead_end.cause,
        "domain": dead_end.domain,
    }


@dataclass
class PageSeen:
    """The page last observed: the Worker view selects earlier runs' dead ends by it."""

    url: str = ""
    text: str = ""


def plan_event(
    verdict: PlannerVerdict, step: int, trigger: Trigger, ledger: Ledger
) -> dict[str, Any]:
    """The `plan.updated` payload of a verdict: with the Ledger's subgoal and checklist."""
    payload = verdict.event(step, trigger.value)
    payload["subgoal"] = ledger.subgoal
    payload["checklist"] = [
        {"id": i.id, "text": i.text, "status": i.status} for i in ledger.checklist
    ]
    return payload


class Brain:
    """One per run: the Planner, the adaptive memory and the Ledger's persistence."""

    def __init__(
        self,
        planner: Planner,
        adaptive: AdaptiveMemory,
        memory: MemoryStore,
        sink: EventSink,
        history: LedgerHistory,
        config: BrainConfig,
    ) -> None:
        self.planner, self.adaptive, self.memory = planner, adaptive, memory
        self.sink, self.history, self.config = sink, history, config
        self.verified = False  # a claim was verified (a failure claim is, at most once)
        self.rejections = 0  # completion claims the Planner did not accept
        self.failed_streak = 0
        self._checklist_step = 0  # the step whose one checklist update is spent
        self._last_move: tuple[str, str, str] | None = None  # (url, description, signature)
        self._session = history.session_text
        self._saved: dict[str, Any] | None = None  # the ledger row as last written
        # dead ends of the last steps, held until the run moved on: the action a run won
        # with is no dead end for later runs (issue 34)
        self._held: list[tuple[DeadEnd, int, str]] = []  # (dead end, its step, domain)
        self.page = PageSeen()
        self.offset = 0  # run steps replayed from a route: the cadence counts Worker steps
        self.reviewed_at = 0  # the Worker step of the Planner's last call (0: none, or start)
        self.progress = Progress()  # the Worker's moves since then (roles/cadence.py)
        self.evidence = EvidenceLog()  # read-tool results a claim is judged by

    @classmethod
    def create(
        cls,
        task: AgentTask,
        llm: LLM,
        sink: EventSink,
        memory: MemoryStore | None,
        config: BrainConfig,
    ) -> tuple[Brain, Ledger, LedgerHistory]:
        ledger = Ledger(task.instruction)
        adaptive = AdaptiveMemory(
            llm, ledger, MemoryConfig(summarizer_calls=config.summarizer_calls)
        )
        page = PageSeen()

        def render(ledger: Ledger, url: str, replayed: int = 0) -> str:
            text = page.text if page.url == url else ""
            view = worker_view(ledger, url, adaptive.window, text, replayed)
            return render_worker(view, include_goal=False)

        clock = RunClock.start(task.deadline, task.time_zone, task.clock)
        history = LedgerHistory(task, ledger, clock, render)
        store = memory if memory is not None else InMemoryMemoryStore()
        brain = cls(Planner(llm), adaptive, store, sink, history, config)
        brain.page = page
        return brain, ledger, history

    # -- start, new domains and cadence ---------------------------------------------------
    async def start(self, ledger: Ledger, task: AgentTask) -> None:
        """What earlier runs left on the start page's domain enters the new Ledger, and the
        operator's guides for it become the directives the plan starts from."""
        domain = domain_of(task.start_url or "")
        site = await self._recall(ledger, domain, task.start_url or "")
        await self._directives(ledger, task, domain, site)
        await self.persist(ledger, 0)

    async def _directives(
        self, ledger: Ledger, task: AgentTask, domain: str, site: SiteMemory | None
    ) -> None:
        """Seed 004 §3.1: guide passages relevant to the task -> 2-4 directives in the plan
        (guidance.py), announced in `plan.updated`; no relevant passage, no model call."""
        found = guidance.passages(await self.memory.load_guides(domain))
        picked = guidance.select(found, task.instruction)
        if not picked:
            return
        learnings = render_site(site) if site is not None and not site.empty else ""
        start = task.start_url or ""
        steps = await guidance.directives(
            self.planner.llm, task.instruction, start, picked, learnings
        )
        if not steps:
            return
        ledger.set_plan(steps, steps[0])
        payload = PlannerVerdict(next_steps=steps).event(0, GUIDANCE)
        payload["directives"] = list(steps)
        payload["passages"] = [" / ".join(filter(None, (p.guide, p.heading))) for p in picked]
        payload["subgoal"], payload["checklist"] = ledger.subgoal, []
        await self.sink.emit(EventType.plan_updated, payload)

    async def enter(self, ledger: Ledger, state: Observation) -> SiteMemory | None:
        """Each observation: the page the views select dead ends for; on a domain the run
        had not entered yet, its learnings and unexpired dead ends (issue 21). Returns the
        new domain's learnings, None when the domain is not new."""
        self.page.url, self.page.text = state.url, state.text
        return await self._recall(ledger, domain_of(state.url), state.url)

    async def _recall(self, ledger: Ledger, domain: str, url: str) -> SiteMemory | None:
        if not domain or domain in ledger.sites:
            return None
        # the store decides which: DbMemoryStore gives the unexpired ones, newest first
        ledger.load_dead_ends(await self.memory.load_domain_dead_ends(domain))
        site_map = SiteMap.of(await self.memory.load_site_map(domain))  # seed 001 §2.3
        site = SiteMemory.of(domain, await self.memory.load_domain_learnings(domain), site_map)
        site = site.scoped(ledger.goal, url)  # issue 34: this task's facts, not the host's
        ledger.sites[domain] = site
        return site

    def due(self, step: int) -> bool:
        return self.trigger(step) is not None

    def trigger(self, step: int) -> Trigger | None:
        step -= self.offset  # s of Algorithm 1 line 10 counts the Worker's own steps
        if step == 1 and self.config.planner_at_start:
            return Trigger.start
        due = step - self.reviewed_at >= self.config.planner_every_n_steps  # N since the last
        now = page_fingerprint(self.page.text)
        if due and (self.config.review_when_progressing or self.progress.stalled(now)):
            return Trigger.periodic
        if self.failed_streak >= self.config.failures_before_review:
            return Trigger.failures
        return None

    def should_verify(self, claim: CompletionClaim, executed: Sequence[ExecutedCall]) -> bool:
        """Every success claim is verified (bounded by `rejected_out`); a failure claim once,
        and not when claimed on a first step that did nothing else (nothing to verify)."""
        if claim.success:
            return True
        if self.verified:
            return False
        first_and_only = claim.step == 1 and all(
            ex.action is not None and ex.action.name == DONE for ex in executed
        )
        return claim.success or not first_and_only

    # -- the Planner ------------------------------------------------------------------------
    async def review(
        self,
        ledger: Ledger,
        step: int,
        state: Observation,
        trigger: Trigger | None,
        claim: CompletionClaim | None = None,
        executed: Sequence[ExecutedCall] = (),
    ) -> PlannerVerdict:
        """`executed`: the claim's own step, whose reads are evidence before it is ingested."""
        kind = trigger or Trigger.periodic
        self.evidence.add(step, executed)
        spent, before = self._checklist_step == step, ledger.checklist

        async def prepare(messages: list[Message]) -> list[Message]:
            def render(led: Ledger) -> str:
                return render_planner_view(led, state)

            return await self._evict(messages, ledger, step, render, PLANNER)

        verdict = await self.planner.review(
            ledger,
            self._session,
            state,
            claim,
            checklist_update=not spent,
            prepare=prepare,
            evidence=self.evidence.render() if claim is not None else "",
            step=step,
        )
        self.failed_streak = 0
        self.reviewed_at = 0 if kind is Trigger.start else step - self.offset
        self.progress.reset()
        created_with_update = not before and any(i.status != "pending" for i in ledger.checklist)
        if (before or created_with_update) and ledger.checklist != before:
            self._checklist_step = step  # an item changed (creating the list alone is not one)
        if claim is not None:
            self.verified = True
            self.rejections += not verdict.done
            if not verdict.done:
                self.history.notes.append(
                    "The Planner did not accept completion yet: "
                    + (verdict.challenges or "; ".join(verdict.next_steps) or "keep going")
                )
        payload = plan_event(verdict, step, kind, ledger)
        await self.sink.emit(EventType.plan_updated, payload)
        await self.persist(ledger, step)
        return verdict

    async def vouched(self, ledger: Ledger, step: int, url: str) -> None:
        """A success claim accepted without the Planner's call: the verified replay and the
        answer check vouch for it (workers/agent/replay/replay_vouch.py), written to the Ledger and
        to `plan.updated` with `verified_by`."""
        self.verified = True
        why = "claim accepted: the proven route replayed with every effect seen, answer values seen"
        ledger.add_checkpoint("verified", f"{why} (no Planner call)", url, step)
        payload = plan_event(PlannerVerdict(done=True), step, Trigger.completion, ledger)
        payload["verified_by"] = VERIFIED_BY
        await self.sink.emit(EventType.plan_updated, payload)
        await self.persist(ledger, step)

    def rejected_out(self) -> bool:
        """K claims rejected: the run ends failed instead of claiming again."""
        return self.rejections >= self.config.max_rejections

    # -- Ingest -------------------------------------------------------------------------------
    async def ingest(
        self,
        ledger: Ledger,
        outcome: StepOutcome,
        notes: WorkerNotes,
        executed: Sequence[ExecutedCall],
        state: Observation,
    ) -> None:
        step = outcome.step
        self.evidence.add(step, executed)
        if _FAILED_EVALUATION.match(notes.evaluation) and self._last_move is not None:
            url, description, signature = self._last_move
            ledger.mark_dead_end(
                f"{description} led nowhere: {textcut.cut(notes.evaluation, 120)}",
                url,
                "postcondition_miss",
                step=step,
                signature=signature,
            )
        self._last_move = self._move_of(executed, state)
        moves = (describe_action(ex.action, state.text)[1] for ex in executed if ex.action)
        self.progress.add(page_fingerprint(state.text), "; ".join(moves))
        if notes.plan and not ledger.checklist:  # the Worker's first turn writes the checklist
            ledger.set_checklist(notes.plan)
        for key, value in notes.facts:
            ledger.record_fact(key, value, category="observation", confidence=0.8, step=step)
        for ex in executed:  # the record_fact tool writes to the Ledger too
            if ex.action is not None and ex.action.name == RECORD_FACT and ex.result.success:
                args = ex.action.args
                ledger.record_fact(str(args["key"]), str(args["value"]), step=step)
        one_left = notes.checklist is not None and self._checklist_step != step
        if one_left and ledger.update_checklist_item(*notes.checklist) is not None:  # type: ignore[misc]
            self._checklist_step = step
        ledger.record_step(outcome)
        self.failed_streak = 0 if outcome.success else self.failed_streak + 1
        await self.adaptive.add(outcome)
        await self.persist(ledger, step)

    def _move_of(
        self, executed: Sequence[ExecutedCall], state: Observation
    ) -> tuple[str, str, str] | None:
        """The step's successful page-changing action, if any, as a checkpoint candidate."""
        for ex in executed:
            if ex.action is None or not ex.result.success or ex.action.name == DONE:
                continue
            if ex.result.page_changed or is_page_changing(ex.action):
                description, signature = describe_action(ex.action, state.text)
                return state.url, description, signature
        return None

    # -- eviction and persistence ----------------------------------------------------------
    async def evict(
        self, messages: list[Message], ledger: Ledger, step: int, url: str
    ) -> list[Message]:
        """Before the Worker's call: Algorithm 3 with the Worker view as RenderForLLM."""
        return await self._evict(
            messages, ledger, step, lambda led: self.history.render(led, url), WORKER
        )

    async def _evict(
        self,
        messages: list[Message],
        ledger: Ledger,
        step: int,
        render: Callable[[Ledger], str],
        role: str,
    ) -> list[Message]:
        """Algorithm 3 before a model call, then the Ledger it wrote to is persisted."""
        result = evict(messages, ledger, step=step, render=render)
        await self.sink.emit(EventType.memory_evicted, {**result.event(step), "role": role})
        await self.persist(ledger, step)
        return result.messages

    async def persist(self, ledger: Ledger, step: int) -> None:
        """Write the journal since the last call, then the snapshot (only when it differs
        from the row as last written: a step persists before each model call and after it)."""
        for change in ledger.drain():
            await self._store(change, step)
        await self._release(lambda at: at < step - HELD_STEPS)
        row = ledger.to_dict()
        if row != self._saved:
            await self.memory.save_ledger(row)
            self._saved = row

    async def finish(self, ledger: Ledger, step: int, won: bool) -> None:
        """The run's last write: a won run drops a dead end of its last steps after which
        the page changed (the winning action judged "no effect", issue 34); the rest are
        written."""
        for change in ledger.drain():
            await self._store(change, step)
        now = page_fingerprint(self.page.text) if self.page.text else ""

        def winning(dead_end: DeadEnd, at: int) -> bool:
            judged = dead_end.cause == LED_NOWHERE and bool(dead_end.state)  # "no effect"
            return at >= step - HELD_STEPS and judged and dead_end.state != now

        if won and now:
            self._held = [h for h in self._held if not winning(h[0], h[1])]
        await self._release(lambda at: True)
        await self.persist(ledger, step)

    async def _release(self, due: Callable[[int], bool]) -> None:
        keep = []
        for dead_end, at, domain in self._held:
            if not due(at):
                keep.append((dead_end, at, domain))
                continue
            await self.memory.record_dead_end(domain, dead_end)
            await self.sink.emit(EventType.dead_end_recorded, _dead_end_event(dead_end, at))
        self._held = keep

    async def _store(self, change: LedgerChange, step: int) -> None:
        entry = change.entry
        if change.kind == "step":
            await self.memory.append_step(entry)
        elif change.kind == "fact":
            url = self.history.current_url
            await self.memory.append_fact(entry, domain_of(url), url)
            await self.sink.emit(EventType.fact_recorded, _fact_event(entry, step))
        elif change.kind == "dead_end":
            domain = entry.domain or domain_of(self.history.current_url)
            self._held.append((entry, entry.step or step, domain))
        elif change.kind == "episodic":
            await self.memory.append_episodic(entry)
