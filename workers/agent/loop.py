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
import contextlib
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any

from app.contracts import ErrorCode, EventType, TaskStatus
from workers.agent.brain import Brain, BrainConfig, Trigger, describe_action
from workers.agent.errors import AgentError, FeedbackError, TaskCancelled
from workers.agent.eviction import cause_of
from workers.agent.guards import DomainGuard, NavigationGuard
from workers.agent.history import (
    CompressedHistory,
    ExecutedCall,
    History,
    StepRecord,
    call_line,
)
from workers.agent.ledger import Ledger, StepOutcome
from workers.agent.protocols import (
    LLM,
    Action,
    AgentOutcome,
    AgentTask,
    Browser,
    EventSink,
    MemoryStore,
    Observation,
    ToolCall,
    ToolResult,
)
from workers.agent.roles.planner import CompletionClaim
from workers.agent.roles.worker import Worker, WorkerTurn
from workers.agent.task_profiles import ProfileGuard, allowed_tools, refuse_login_form
from workers.agent.tools import (
    DONE,
    MAX_ACTIONS_PER_STEP,
    is_page_changing,
    parse_action,
    redacted_args,
    worker_tools,
)
from workers.metered_llm import MeteredLLM

PREVIEW_CHARS = 600
# failures that say "re-read the page", not "this path leads nowhere"
NOT_DEAD_ENDS = frozenset(
    {"skipped", "stale_ref", "bad_ref", "ref_not_found", "invalid_tool_call", "unknown_tool"}
)


@dataclass
class Usage:
    """Step and reply-quality counters; model usage is metered by the MeteredLLM."""

    steps: int = 0
    nudges: int = 0
    feedback_errors: int = 0
    text_actions: int = 0


@dataclass(frozen=True)
class Ending:
    """Why the loop stops; turned into an AgentOutcome with the usage so far."""

    status: TaskStatus
    answer: str | None = None
    success: bool = False
    error: ErrorCode | None = None
    reason: str = ""


@dataclass
class _Batch:
    executed: list[ExecutedCall] = field(default_factory=list)
    claim: CompletionClaim | None = None  # the Worker called done
    stopped: str = ""  # why the remaining calls of the batch are skipped


def _skipped(why: str) -> ToolResult:
    return ToolResult(success=False, reason=why, error="skipped")


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
    ) -> None:
        self.task, self.browser, self.sink = task, browser, sink
        self.llm = llm if isinstance(llm, MeteredLLM) else MeteredLLM(llm, sink)
        self.history, self.brain = history, brain
        self.ledger = ledger if ledger is not None else Ledger(task.instruction)
        self.profile = ProfileGuard.for_task(task.task_profile)
        offered = worker_tools(
            allow_scripts=task.allow_scripts,
            vision=task.look_tool,
            only=allowed_tools(task.task_profile),
        )
        self.worker = Worker(self.llm, offered)
        self.usage = Usage()
        self.guard = DomainGuard(task.allowed_domains)
        self.nav_guard = NavigationGuard(task.allowed_domains, task.start_url)
        self._nudged_last = False
        self._shot: asyncio.Future[bytes] | None = None  # this step's capture, off the path
        self._saves: set[asyncio.Task[None]] = set()

    async def run(self) -> AgentOutcome:
        try:
            ending = await self._run()
        except TaskCancelled as exc:
            ending = Ending(TaskStatus.cancelled, reason=str(exc))
        except AgentError as exc:
            ending = Ending(TaskStatus.failed, error=exc.code, reason=str(exc))
        finally:
            await self._drain_screenshots()
        if self.brain is not None:
            await self.brain.persist(self.ledger, self.usage.steps)
        metered = self.llm.usage
        return AgentOutcome(
            answer=ending.answer,
            success=ending.success,
            status=ending.status.value,
            steps=self.usage.steps,
            llm_calls=metered.calls,
            input_tokens=metered.input_tokens,
            output_tokens=metered.output_tokens,
            error=ending.error.value if ending.error else None,
            reason=ending.reason,
        )

    async def _run(self) -> Ending:
        if self.brain is not None:
            await self.brain.start(self.ledger, self.task)  # line 7: L <- Ledger(goal = T)
        if self.task.start_url:  # line 8: page <- OpenBrowser(T.url)
            ending = await self._bounded(self._open)
            if ending is not None:
                return ending
        for step in range(1, self.task.max_steps + 1):  # line 9
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
        remaining = self.task.deadline - time.monotonic()
        if remaining <= 0:
            return Ending(TaskStatus.timed_out, error=ErrorCode.timeout, reason="deadline")
        budget = asyncio.timeout(remaining)
        try:
            async with budget:
                return await work()
        except TimeoutError:
            if not budget.expired():
                raise
            return Ending(TaskStatus.timed_out, error=ErrorCode.timeout, reason="deadline")

    async def _open(self) -> None:
        """A start page that fails to load is reported to the model, not fatal."""
        url = str(self.task.start_url)
        result = await self.browser.goto(url)
        self.nav_guard.after_hop(url, challenged=cause_of(result.error) == "bot_block")
        await self._emit_action(0, Action("navigate", {"url": url}), result)

    # -- one step of Algorithm 1 ----------------------------------------------------------
    async def _step(self, step: int) -> Ending | None:
        self.usage.steps = self.llm.step = step
        await self.sink.emit(EventType.step_started, {"step": step})
        state = await self._observe(step)  # line 9
        if self.brain is not None and self.brain.due(step):  # line 10
            verdict = await self.brain.review(self.ledger, step, state, self.brain.trigger(step))
            if verdict.done:  # line 12
                return self._planner_ending(verdict.final_answer, verdict.success)
        turn = await self._think(step, state)  # line 15
        if not turn.calls:
            return await self._no_tool_call(step, state, turn)
        batch = await self._act(step, turn.calls, state)  # lines 16-20
        self.history.record(StepRecord(step, state.url, turn.content, tuple(batch.executed)), state)
        await self._ingest_step(step, state, turn, batch)
        if batch.claim is not None:
            return await self._claimed(step, state, batch)
        return None

    async def _observe(self, step: int) -> Observation:
        await self._stay_on_allowlist()  # a page may have moved on its own since the last step
        observation = await self.browser.observe(self.task.observation_mode)
        if self.task.forbid_login:  # seed 004 App. C.5, before the model sees the page
            await refuse_login_form(self.browser, observation)
        await self.sink.emit(EventType.observation, observation_event(step, observation))
        self._screenshot(step)
        return observation

    def _screenshot(self, step: int) -> None:
        """Capture and store the step's screenshot while the model thinks (issue 13: it was
        12% of the per-step overhead); `_act` waits for the capture, never for the write."""
        shot = asyncio.ensure_future(self.browser.screenshot())
        self._shot = shot

        async def save() -> None:
            with contextlib.suppress(Exception):  # a failed capture is raised by _act
                await self.sink.save_screenshot(step, await asyncio.shield(shot))

        task = asyncio.create_task(save(), name=f"screenshot-{step}")
        self._saves.add(task)
        task.add_done_callback(self._saves.discard)

    async def _captured(self) -> None:
        """The screenshot shows the observed page, not the page after this step's action."""
        shot, self._shot = self._shot, None
        if shot is not None:
            await shot  # a browser fault in the capture ends the run as before

    async def _drain_screenshots(self) -> None:
        shot, self._shot = self._shot, None
        if shot is not None and not shot.done():
            shot.cancel()
        if self._saves:
            await asyncio.gather(*self._saves, return_exceptions=True)

    async def _think(self, step: int, state: Observation) -> WorkerTurn:
        messages = self.history.messages(state, step)
        if self.brain is not None:
            messages = await self.brain.evict(messages, self.ledger, step, state.url)
        _, turn = await self.worker.act(messages)
        if turn.from_text:
            self.usage.text_actions += 1
        return turn

    async def _no_tool_call(self, step: int, seen: Observation, turn: WorkerTurn) -> Ending | None:
        """Nudge once; a second reply in a row without a tool call means the model gave up."""
        self.usage.nudges += 1
        previous_nudged, self._nudged_last = self._nudged_last, True
        self.history.record(StepRecord(step, seen.url, turn.content, ()), seen)
        await self._ingest_step(step, seen, turn, _Batch())
        if previous_nudged:
            return Ending(
                TaskStatus.failed,
                answer=turn.content,
                error=ErrorCode.gave_up,
                reason="the model stopped calling tools",
            )
        return None

    async def _act(self, step: int, calls: tuple[ToolCall, ...], state: Observation) -> _Batch:
        """Execute up to five calls in order; a page change or `done` ends the batch."""
        self._nudged_last = False
        await self._captured()
        batch = _Batch()
        for index, call in enumerate(calls):
            if index >= MAX_ACTIONS_PER_STEP and not batch.stopped:
                batch.stopped = f"at most {MAX_ACTIONS_PER_STEP} actions run per step"
            if batch.stopped:
                batch.executed.append(ExecutedCall(call, None, _skipped(batch.stopped)))
                continue
            if call.name == DONE and any(not ex.result.success for ex in batch.executed):
                # a `done` batched behind a failed action was decided before that failure
                why = "an earlier action of this turn failed; read its result before finishing"
                batch.executed.append(ExecutedCall(call, None, _skipped(why)))
                continue
            if await self.sink.cancel_requested():  # no action (nor `done`) after a cancel
                raise TaskCancelled("cancel requested")
            executed = await self._execute(step, call, state)
            batch.executed.append(executed)
            if executed.action is not None and executed.action.name == DONE:
                args = executed.action.args
                batch.claim = CompletionClaim(str(args["answer"]), bool(args["success"]), step)
                batch.stopped = "the run finished with an earlier call"
            elif _changed_page(executed):  # line 18: page-changing and r.success -> break
                batch.stopped = "an earlier action changed the page; re-read it first"
        return batch

    async def _execute(self, step: int, call: ToolCall, state: Observation) -> ExecutedCall:
        try:
            action = parse_action(call)
        except FeedbackError as exc:
            self.usage.feedback_errors += 1
            result = ToolResult(success=False, reason=exc.message, error=exc.error)
            await self._emit_action(step, Action(call.name, {}), result)
            return ExecutedCall(call, None, result)
        refusal = await self.profile.check_on(self.browser, action, state.text)  # §9.3
        if refusal is not None:
            result = refusal
        elif action.name == DONE:
            result = ToolResult(success=True, reason="finished")
        else:
            result = await self._navigate_guarded(action)
        repeated = self._ingest_action(step, action, result, state)
        await self._emit_action(step, action, result)
        return ExecutedCall(call, action, result, repeated)

    def _ingest_action(
        self, step: int, action: Action, result: ToolResult, state: Observation
    ) -> bool:
        """Ingest(L, a, r, state.url): a failure becomes a dead end; True if it was one."""
        if result.success or (result.error or "") in NOT_DEAD_ENDS:
            return False
        description, signature = describe_action(action, state.text)
        repeated = self.ledger.is_dead_end(state.url, signature)
        reason = " ".join((result.reason or result.error or "failed").split())[:120]
        self.ledger.mark_dead_end(
            f"{description} failed: {reason}",
            state.url,
            cause_of(result.error),
            step=step,
            signature=signature,
        )
        return repeated

    async def _ingest_step(
        self, step: int, state: Observation, turn: WorkerTurn, batch: _Batch
    ) -> None:
        actions = tuple(call_line(ex) for ex in batch.executed)
        failed = next((ex.result for ex in batch.executed if not ex.result.success), None)
        outcome = StepOutcome(
            step=step,
            url=state.url,
            actions=actions,
            success=failed is None and bool(actions),
            error=(failed.error or "failed") if failed else (None if actions else "no_action"),
            reason=(failed.reason or "")[:500] if failed else "",
            evaluation=turn.notes.evaluation,
            memory=turn.notes.memory,
            next_goal=turn.notes.next_goal,
        )
        if self.brain is not None:
            await self.brain.ingest(self.ledger, outcome, turn.notes, batch.executed, state)

    async def _claimed(self, step: int, state: Observation, batch: _Batch) -> Ending | None:
        """workerDone: without a Planner the claim ends the run; with one it is verified."""
        claim = batch.claim
        assert claim is not None
        if self.brain is None or not self.brain.should_verify(claim, batch.executed):
            return self._planner_ending(claim.answer, claim.success)
        if len(batch.executed) > 1:  # earlier actions of the batch may have changed the page
            state = await self._observe(step)
        verdict = await self.brain.review(self.ledger, step, state, Trigger.completion, claim)
        if verdict.done:
            return self._planner_ending(verdict.final_answer or claim.answer, verdict.success)
        return None

    @staticmethod
    def _planner_ending(answer: str, success: bool) -> Ending:
        return Ending(
            TaskStatus.succeeded if success else TaskStatus.failed,
            answer=answer,
            success=success,
            error=None if success else ErrorCode.gave_up,
            reason="done" if success else "the agent reported failure",
        )

    async def _navigate_guarded(self, action: Action) -> ToolResult:
        """Seed 000 §6.5: refuse fenced navigations, flag regressions, note challenged hops."""
        target = str(action.args.get("url", "")) if action.name == "navigate" else ""
        refusal = self.nav_guard.before_navigate(target) if target else None
        if refusal is not None:
            return refusal
        regression = bool(target) and self.nav_guard.regression(target)
        result = await self.browser.execute(action)
        result = await self._stay_on_allowlist() or result
        if target:
            challenged = cause_of(result.error) == "bot_block"
            self.nav_guard.after_hop(target, challenged=challenged)
        if regression and result.success:
            note = "regression: this page was already visited; repair the current state"
            result = replace(result, reason=f"{result.reason} ({note} instead of restarting)")
        return result

    async def _stay_on_allowlist(self) -> ToolResult | None:
        """Seed 003 §8.4.2: never show the model a page outside the allowed domains."""
        reason = self.guard.check(self.browser.url)
        if reason is None:
            return None
        await self.browser.goto(self.guard.last_allowed)
        return ToolResult(
            success=False,
            error="guard_violation",
            reason=f"navigation blocked: {reason}; returned to {self.guard.last_allowed}",
            page_changed=True,
        )

    async def _emit_action(self, step: int, action: Action, result: ToolResult) -> None:
        await self.sink.emit(
            EventType.action_executed,
            {
                "step": step,
                "action": action.name,
                "args": dict(redacted_args(action)),
                "success": result.success,
                "reason": result.reason,
                "error": result.error,
                "page_changed": result.page_changed,
            },
        )


def _changed_page(executed: ExecutedCall) -> bool:
    action, result = executed.action, executed.result
    if action is None or not result.success:
        return False
    return result.page_changed or is_page_changing(action)


def observation_event(step: int, observation: Observation) -> Mapping[str, Any]:
    """What watchers see of a page: figures and a preview, not the whole snapshot."""
    return {
        "step": step,
        "url": observation.url,
        "title": observation.title,
        "version": observation.version,
        "refs": observation.refs,
        "interactive": observation.interactive,
        "tokens": observation.tokens,
        "fingerprint": observation.fingerprint,
        "stats": dict(observation.stats),
        "preview": observation.text[:PREVIEW_CHARS],
    }


HistoryFactory = Callable[[AgentTask], History]


async def run_worker_loop(
    task: AgentTask, browser: Browser, llm: LLM, sink: EventSink, history: History
) -> AgentOutcome:
    """The Worker alone with an explicit history (the naive and Worker-only baselines)."""
    return await AgentLoop(task, browser, llm, sink, history).run()


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
) -> AgentOutcome:
    """Planner + Worker over the Ledger on an open browser (Algorithm 1 lines 7-23)."""
    metered = MeteredLLM(llm, sink)
    brain, ledger, history = Brain.create(task, metered, sink, memory, config or BrainConfig())
    return await AgentLoop(task, browser, metered, sink, history, ledger=ledger, brain=brain).run()
