"""The browser run loop: seed 000 Algorithm 1 lines 7-23 (the three-role run loop).

    L <- Ledger(goal = T); page <- OpenBrowser(T.url)                      lines 7-8
    for s <- 1 to M:
        state <- Observe(page)                                             line 9
        if s mod N = 0 or workerDone (or repeated failures):               line 10
            plan <- Planner(state, L, T); if plan.done: return answer      lines 11-12
        actions <- Worker(state, L, plan.nextSteps)                        line 15
        foreach a in actions:                                              lines 16-20
            r <- Execute(a, page); L <- Ingest(L, a, r, state.url)
            if a is page-changing and r.success: break
            if not r.success: break           (the rest was decided before the failure)
    return failure                                                         line 23

The Worker's `done` is a completion signal: the Planner verifies it once (seed 001 App. A.4)
and is the only place the run is declared done. Every model call goes through one
MeteredLLM (one `llm.call` event each) after the eviction pass of seed 000 Algorithm 3
(`memory.evicted`). Failed actions become Ledger dead ends (they replace a private set of
failed signatures); Ledger changes are persisted through the MemoryStore after every step,
with `fact.recorded` / `dead_end.recorded` events. Without a `Brain` (the naive baseline and
the Worker-only comparison) the same loop runs the Worker alone and `done` ends the run.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from functools import partial

from app import metrics
from app.contracts import ErrorCode, EventType, TaskStatus
from workers.agent import prompts, textcut
from workers.agent.clock import TaskClock
from workers.agent.context.history import (
    CompressedHistory,
    History,
    StepRecord,
    call_line,
)
from workers.agent.errors import AgentError, TaskCancelled, recovery_signal
from workers.agent.loop.batch import Batch, BatchRunner
from workers.agent.loop.brain import Brain, BrainConfig, Trigger
from workers.agent.loop.endings import Ending, Usage
from workers.agent.loop.metered import MeteredLLM
from workers.agent.loop.refresh import carry_refs, look_again, retarget
from workers.agent.loop.screenshots import StepScreenshots
from workers.agent.loop.step_events import action_event, observation_event
from workers.agent.memory.approval_memory import annotate as annotate_approvals
from workers.agent.memory.ledger import Ledger, StepOutcome, domain_of
from workers.agent.memory.routes import best_route, url_matches
from workers.agent.memory.site_map import annotate_menus
from workers.agent.memory.site_memory import SiteMemory
from workers.agent.people.navigation import GuardedNavigation
from workers.agent.people.takeover import NOTE_KIND as PERSON_NOTE
from workers.agent.people.takeover import PersonNotes
from workers.agent.people.task_profiles import ProfileGuard, allowed_tools, refuse_login_form
from workers.agent.protocols import (
    LLM,
    Action,
    AgentOutcome,
    AgentTask,
    Browser,
    EventSink,
    MemoryStore,
    Observation,
    PopupDismisser,
    RouteStore,
    ToolResult,
)
from workers.agent.replay.replay import Replayer, ReplayReport, tell_ledger
from workers.agent.replay.replay_vouch import ReplayVouch
from workers.agent.roles.worker import Worker, WorkerTurn
from workers.agent.tools.offer import ToolOffer
from workers.agent.tools.registry import MORE_TOOLS

log = logging.getLogger(__name__)

__all__ = ["AgentLoop", "Ending", "Usage", "run_agent", "run_worker_loop", "run_worker_only"]


class AgentLoop:
    """One run: the Worker every step, the Planner when Algorithm 1 line 10 says so."""

    def __init__(
        self,
        task: AgentTask,
        browser: Browser,
        llm: LLM,
        sink: EventSink,
        history: History,
        *,
        ledger: Ledger | None = None,
        brain: Brain | None = None,
        every_tool: bool = False,
        routes: RouteStore | None = None,
    ) -> None:
        self.task, self.browser, self.sink = task, browser, sink
        self.routes = routes if task.reuse_routes else None
        self.replayed: ReplayReport | None = None
        self.vouch = ReplayVouch()  # what the run saw, for a verified replay's claim
        self.llm = llm if isinstance(llm, MeteredLLM) else MeteredLLM(llm, sink)
        self.history, self.brain = history, brain
        self.ledger = ledger if ledger is not None else Ledger(task.instruction)
        self.offer = ToolOffer(
            instruction=task.instruction,
            allow_scripts=task.allow_scripts,
            vision=task.look_tool,
            only=allowed_tools(task.task_profile),
            every=every_tool,
            output_schema=task.output_schema,
        )
        self.worker = Worker(self.llm)
        self.usage = Usage()
        self.navigation = GuardedNavigation(browser, task)
        self.screenshots = StepScreenshots(browser, sink)
        profile = ProfileGuard.for_task(task.task_profile)
        self.actions = BatchRunner(
            sink, self.navigation, profile, self.ledger, self.usage, self.offer
        )
        self._nudged_last = False
        self._observed: Observation | None = None  # what the step's model call was shown
        self.clock = task.clock or TaskClock(task.deadline)  # stands still in a takeover

    async def run(self) -> AgentOutcome:
        try:
            ending = await self._run()
        except TaskCancelled as exc:
            ending = Ending(TaskStatus.cancelled, reason=str(exc))
        except AgentError as exc:
            reason = str(exc)
            if exc.code == ErrorCode.internal:  # never silent (issue 31 item 1)
                log.error("run ended internal: %r", exc, exc_info=exc)
                metrics.internal_error(exc)
                reason = f"{type(exc).__name__}: {exc}"
            ending = Ending(TaskStatus.failed, error=exc.code, reason=reason, cause=exc.cause)
        finally:
            await self.screenshots.drain()
        if self.replayed is not None:
            model_steps = range(self.replayed.next_step, self.usage.steps + 1)
            await self.sink.emit(EventType.route_replayed, self.replayed.event(model_steps))
        if self.brain is not None:
            await self.brain.finish(self.ledger, self.usage.steps, ending.success)
        return ending.outcome(self.usage.steps, self.llm.usage)

    async def _run(self) -> Ending:
        if self.brain is not None:
            await self.brain.start(self.ledger, self.task)  # line 7: L <- Ledger(goal = T)
            for site in self.ledger.sites.values():  # the URL grammar earlier runs learned
                self.navigation.learn(site)
        if self.task.start_url:  # line 8: page <- OpenBrowser(T.url)
            ending = await self._bounded(self._open)
            if ending is not None:
                return ending
        first = 1
        if self.routes is not None:  # a proven route of this site and intent, no model calls
            ending = await self._bounded(self._replay)
            if ending is not None:
                return ending
            first = self.replayed.next_step if self.replayed is not None else 1
        for step in range(first, self.task.max_steps + 1):  # line 9
            if await self.sink.cancel_requested():
                return Ending(TaskStatus.cancelled, reason="cancel requested")
            ending = await self._bounded(partial(self._step, step))
            if ending is not None:
                return ending
        return Ending(  # line 23
            TaskStatus.failed,
            error=ErrorCode.max_steps,
            reason=f"no answer after {self.task.max_steps} steps",
        )

    async def _bounded(self, work: Callable[[], Awaitable[Ending | None]]) -> Ending | None:
        """Run `work` within the task deadline; running out of time ends the run."""
        if self.clock.deadline <= time.monotonic():
            return Ending.timed_out()
        budget: asyncio.Timeout | None = None
        try:
            async with self.clock.bounded() as budget:
                return await work()
        except TimeoutError:
            if budget is None or not budget.expired():
                raise
            return Ending.timed_out()

    async def _open(self) -> None:
        """A start page that fails to load is reported to the model, not fatal. A consent
        banner earlier runs dismissed on this domain is dismissed before the first look."""
        url = str(self.task.start_url)
        result = await self.navigation.open(url)
        await self.actions.emit(0, Action("navigate", {"url": url}), result)
        site = self.ledger.sites.get(domain_of(self.browser.url))
        if result.success and isinstance(site, SiteMemory):
            await self._dismiss_known_popups(site)

    async def _dismiss_known_popups(self, site: SiteMemory) -> None:
        if not isinstance(self.browser, PopupDismisser):
            return
        for popup in site.popups:
            role, name = str(popup.get("role") or "button"), str(popup.get("name") or "")
            if name and await self.browser.dismiss_popup(role, name):
                done = ToolResult(success=True, reason=f"dismissed the known {role} {name!r}")
                await self.actions.emit(0, Action("dismiss_popup", {"name": name}), done)
                return

    # -- a proven route (workers/agent/replay/replay.py) -------------------------------------------
    async def _replay(self) -> None:
        assert self.routes is not None
        found = best_route(
            await self.routes.load_routes(domain_of(self.browser.url)), self.task.instruction
        )
        if found is None or not url_matches(found[0].start, self.browser.url, found[1]):
            return
        replayer = Replayer(
            found[0],
            found[1],
            act=self._act_replayed,
            look=self._observe,
            begin=self._begin_replayed,
            sink=self.sink,
            max_steps=self.task.max_steps,
        )
        report = self.replayed = await replayer.run()
        self.usage.steps = self.llm.step = report.last_step
        tell_ledger(self.ledger, report)
        if self.brain is not None:
            self.brain.offset = report.next_step - 1
            await self.brain.persist(self.ledger, report.last_step)

    async def _begin_replayed(self, step: int) -> None:
        self.usage.steps = self.llm.step = step
        await self.sink.emit(EventType.step_started, {"step": step, "replayed": True})

    async def _act_replayed(self, step: int, action: Action, state: Observation) -> ToolResult:
        """A route's action under the same guards as the model's (task profile, domains,
        URL grammar, approvals), reported with `replayed: true`."""
        refusal = await self.actions.profile.check_on(self.navigation.browser, action, state.text)
        result = refusal or await self.navigation.execute(action)
        await self.sink.emit(
            EventType.action_executed, action_event(step, action, result, replayed=True)
        )
        return result

    # -- one step of Algorithm 1 ----------------------------------------------------------
    async def _step(self, step: int) -> Ending | None:
        self.usage.steps = self.llm.step = step
        await self.sink.emit(EventType.step_started, {"step": step})
        state = await self._observe(step)  # line 9
        if self.brain is not None:  # a domain the run enters brings its learnings
            site = await self.brain.enter(self.ledger, state)
            if site is not None:
                self.navigation.learn(site)
            state = self._with_known_menus(state)
        if self.brain is not None and self.brain.due(step):  # line 10
            verdict = await self.brain.review(self.ledger, step, state, self.brain.trigger(step))
            if verdict.done:  # line 12
                return Ending.finished(verdict.final_answer, verdict.success)
        turn = await self._think(step, state)  # line 15
        if turn.calls and self._observed is not None:  # issue 26 item 7: stale under a slow call
            state, turn = await self._recheck(step, state, self._observed, turn)
        if not turn.calls:
            return await self._no_tool_call(step, state, turn)
        self._nudged_last = False
        await self.screenshots.captured()
        batch = await self.actions.run(step, turn.calls, state)  # lines 16-20
        self.offer.enable_mentioned(_result_texts(batch))
        self.history.record(StepRecord(step, state.url, turn.content, tuple(batch.executed)), state)
        await self._ingest_step(step, state, turn, batch)
        if batch.claim is not None:
            return await self._claimed(step, state, batch)
        return None

    async def _recheck(
        self, step: int, state: Observation, seen: Observation, turn: WorkerTurn
    ) -> tuple[Observation, WorkerTurn]:
        """The page again before acting on a decision made on `seen`. A person who took the
        page over meanwhile (issue 37 item 1) voids the decision: the model decides again on
        the page they left, told first what they did (the void call stays in the usage)."""
        look = await look_again(self.browser, self.task.observation_mode, seen)
        if self._take_person_notes(step, discarded=True):
            state = await self._seen(step, look.now)
            return state, await self._think(step, state)
        kept = None if look.changed is None else retarget(turn.calls, seen, look.now)
        if kept is not None:  # issue 31 item 2: its targets did not change
            return state, replace(turn, calls=kept)
        if look.changed is not None:
            state = await self._seen(step, look.changed)
            return state, await self._think(step, state)
        if look.now.version != seen.version:  # same text, new snapshot: keep the choice
            return state, replace(
                turn, calls=carry_refs(turn.calls, seen.version, look.now.version)
            )
        return state, turn

    def _with_known_menus(self, state: Observation) -> Observation:
        """Menus the site's exploration learned, under their controls where the live page
        hides their items (seed 001 §2.3: observation space augmented with dropdowns), and
        the elements whose action needed a person's approval last time (issue 34)."""
        site = self.ledger.sites.get(domain_of(state.url))
        if not isinstance(site, SiteMemory):
            return state
        text = annotate_menus(state.text, site.site_map.menus)
        text = annotate_approvals(text, site.approvals)  # issue 34: before the action
        return state if text == state.text else replace(state, text=text)

    async def _observe(self, step: int) -> Observation:
        await self.navigation.stay_on_allowlist()  # a page may have moved on its own
        observation = await self.browser.observe(self.task.observation_mode)
        self._take_person_notes(step)
        self.vouch.saw(observation)
        self._observed = observation
        if self.task.forbid_login:  # seed 004 App. C.5, before the model sees the page
            await refuse_login_form(self.browser, observation)
        await self.sink.emit(EventType.observation, observation_event(step, observation))
        self.screenshots.start(step)  # stored while the model thinks (issue 13)
        return observation

    def _take_person_notes(self, step: int, *, discarded: bool = False) -> bool:
        """What a person did on the page since the last look (workers/agent/people/takeover.py):
        a Ledger note, and the first words of the next request (outside the page's text).
        `discarded`: the model's decision in flight when they took over is not carried out."""
        notes = self.browser.person_notes() if isinstance(self.browser, PersonNotes) else []
        if notes and discarded:
            notes[-1] += f" {prompts.load('person_discarded.md').strip()}"
        for text in notes:
            self.ledger.note(text, step, kind=PERSON_NOTE)
        lead = getattr(self.history, "lead", None)  # said first in the next model request
        if notes and isinstance(lead, list):
            lead.extend(notes)
        return bool(notes)

    async def _seen(self, step: int, observation: Observation) -> Observation:
        """A refreshed view (issue 26 item 7) under the same checks as the step's first."""
        self._observed = None  # once per step
        self.vouch.saw(observation)
        if self.task.forbid_login:
            await refuse_login_form(self.browser, observation)
        await self.sink.emit(EventType.observation, observation_event(step, observation))
        return self._with_known_menus(observation) if self.brain is not None else observation

    async def _think(self, step: int, state: Observation) -> WorkerTurn:
        messages = self.history.messages(state, step)
        if self.brain is not None:
            messages = await self.brain.evict(messages, self.ledger, step, state.url)
        _, turn = await self.worker.act(messages, self.offer.tools(state.text))
        if turn.from_text:
            self.usage.text_actions += 1
        return turn

    async def _no_tool_call(self, step: int, seen: Observation, turn: WorkerTurn) -> Ending | None:
        """Nudge once; a second reply in a row without a tool call means the model gave up."""
        self.usage.nudges += 1
        previous_nudged, self._nudged_last = self._nudged_last, True
        self.history.record(StepRecord(step, seen.url, turn.content, ()), seen)
        await self._ingest_step(step, seen, turn, Batch())
        if previous_nudged:
            return Ending(
                TaskStatus.failed,
                answer=turn.content,
                error=ErrorCode.gave_up,
                reason="the model stopped calling tools",
            )
        return None

    async def _ingest_step(
        self, step: int, state: Observation, turn: WorkerTurn, batch: Batch
    ) -> None:
        self.vouch.read(batch.executed)
        actions = tuple(call_line(ex) for ex in batch.executed)
        failed = next((ex.result for ex in batch.executed if not ex.result.success), None)
        outcome = StepOutcome(
            step=step,
            url=state.url,
            actions=actions,
            success=failed is None and bool(actions),
            error=(failed.error or "failed") if failed else (None if actions else "no_action"),
            reason=textcut.cut(failed.reason or "", 500) if failed else "",
            evaluation=turn.notes.evaluation,
            memory=turn.notes.memory,
            next_goal=turn.notes.next_goal,
        )
        if self.brain is not None:
            await self.brain.ingest(self.ledger, outcome, turn.notes, batch.executed, state)

    async def _claimed(self, step: int, state: Observation, batch: Batch) -> Ending | None:
        """workerDone: without a Planner the claim ends the run; with one it is verified."""
        claim = batch.claim
        assert claim is not None
        if self.brain is None or not self.brain.should_verify(claim, batch.executed):
            return Ending.finished(claim.answer, claim.success, claim.data)
        if self.vouch.vouches(self.replayed, claim, state, batch.executed):
            await self.brain.vouched(self.ledger, step, state.url)
            return Ending.finished(claim.answer, claim.success, claim.data)
        if len(batch.executed) > 1:  # earlier actions of the batch may have changed the page
            state = await self._observe(step)
        verdict = await self.brain.review(
            self.ledger, step, state, Trigger.completion, claim, batch.executed
        )
        if verdict.done:
            answer = verdict.final_answer or claim.answer
            return Ending.finished(answer, verdict.success, claim.data)
        if self.brain.rejected_out():
            why = verdict.challenges or verdict.reasoning or "; ".join(verdict.next_steps)
            return Ending(
                TaskStatus.failed,
                answer=claim.answer,
                error=ErrorCode.gave_up,
                reason=f"the Planner rejected completion {self.brain.rejections} times: {why}",
            )
        return None


HistoryFactory = Callable[[AgentTask], History]


def _result_texts(batch: Batch) -> list[str]:
    """What the step's tool results said: tools they name join the offer (not the
    more_tools listing, which names every tool the model may still enable)."""
    texts = []
    for ex in batch.executed:
        if ex.action is not None and ex.action.name == MORE_TOOLS:
            continue
        result = ex.result
        texts += [result.reason or "", *(str(a) for a in result.alternatives)]
        if not result.success:
            texts.append(recovery_signal(result.error) or "")
    return texts


async def run_worker_loop(
    task: AgentTask,
    browser: Browser,
    llm: LLM,
    sink: EventSink,
    history: History,
    *,
    every_tool: bool = False,
) -> AgentOutcome:
    """The Worker alone with an explicit history (the naive and Worker-only baselines);
    `every_tool`: the whole registry on every call instead of tools by need."""
    return await AgentLoop(task, browser, llm, sink, history, every_tool=every_tool).run()


async def run_worker_only(
    task: AgentTask, browser: Browser, llm: LLM, sink: EventSink
) -> AgentOutcome:
    """The Worker-only loop with compressed history (seed 003 §6): no Planner, no Ledger view."""
    return await run_worker_loop(task, browser, llm, sink, CompressedHistory(task))


async def run_agent(
    task: AgentTask,
    browser: Browser,
    llm: LLM,
    sink: EventSink,
    *,
    memory: MemoryStore | None = None,
    config: BrainConfig | None = None,
    routes: RouteStore | None = None,
) -> AgentOutcome:
    """Planner + Worker over the Ledger on an open browser (Algorithm 1 lines 7-23); with
    `routes`, a proven route of the site is replayed first (workers/agent/replay/replay.py)."""
    metered = MeteredLLM(llm, sink)
    brain, ledger, history = Brain.create(task, metered, sink, memory, config or BrainConfig())
    loop = AgentLoop(
        task, browser, metered, sink, history, ledger=ledger, brain=brain, routes=routes
    )
    return await loop.run()
