"""The Worker run loop: seed 000 Algorithm 1 (three-role run loop), Worker role only.

Lines 8-22 of Algorithm 1 as written: open the start page; for s = 1..M observe, ask the
Worker for actions, execute them in order and stop the batch after a successful
page-changing action. The Orchestrator's routing (lines 1-6) and the Planner's every-N-steps
review (lines 10-14) are not here yet; they plug in around `_step` and via `History`.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from app.contracts import ErrorCode, EventType, TaskStatus
from workers.agent.errors import AgentError, FeedbackError
from workers.agent.guards import DomainGuard
from workers.agent.history import CompressedHistory, ExecutedCall, History, StepRecord
from workers.agent.protocols import (
    LLM,
    Action,
    AgentOutcome,
    AgentTask,
    Browser,
    EventSink,
    LLMReply,
    Observation,
    ToolCall,
    ToolResult,
)
from workers.agent.tools import (
    DONE,
    MAX_ACTIONS_PER_STEP,
    WORKER_TOOLS,
    is_page_changing,
    parse_action,
    redacted_args,
)

PREVIEW_CHARS = 600
WORKER = "worker"


@dataclass
class Usage:
    """Running totals for AgentOutcome and the task row."""

    steps: int = 0
    llm_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    nudges: int = 0
    feedback_errors: int = 0

    def add(self, reply: LLMReply) -> None:
        self.llm_calls += 1
        self.input_tokens += reply.input_tokens
        self.output_tokens += reply.output_tokens


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
    ending: Ending | None = None
    stopped: str = ""  # why the remaining calls of the batch are skipped


def _skipped(why: str) -> ToolResult:
    return ToolResult(success=False, reason=why, error="skipped")


class WorkerLoop:
    """One run: owns the usage meter, the history and the failed-action memory."""

    def __init__(
        self, task: AgentTask, browser: Browser, llm: LLM, sink: EventSink, history: History
    ) -> None:
        self.task, self.browser, self.llm, self.sink = task, browser, llm, sink
        self.history = history
        self.usage = Usage()
        self._failed: set[str] = set()
        self._nudged_last = False
        self.guard = DomainGuard(task.allowed_domains)

    async def run(self) -> AgentOutcome:
        try:
            ending = await self._run()
        except AgentError as exc:
            ending = Ending(TaskStatus.failed, error=exc.code, reason=str(exc))
        return AgentOutcome(
            answer=ending.answer,
            success=ending.success,
            status=ending.status.value,
            steps=self.usage.steps,
            llm_calls=self.usage.llm_calls,
            input_tokens=self.usage.input_tokens,
            output_tokens=self.usage.output_tokens,
            error=ending.error.value if ending.error else None,
            reason=ending.reason,
        )

    async def _run(self) -> Ending:
        if self.task.start_url:  # Algorithm 1 line 8: page <- OpenBrowser(T.url)
            ending = await self._bounded(self._open)
            if ending is not None:
                return ending
        for step in range(1, self.task.max_steps + 1):  # line 9
            if await self.sink.cancel_requested():
                return Ending(TaskStatus.cancelled, reason="cancel requested")
            ending = await self._bounded(partial(self._step, step))
            if ending is not None:
                return ending
        return Ending(
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
        await self._emit_action(0, Action("navigate", {"url": url}), result)

    async def _step(self, step: int) -> Ending | None:
        self.usage.steps = step
        await self.sink.emit(EventType.step_started, {"step": step})
        observation = await self._observe(step)  # line 9: state <- Observe(page)
        reply = await self._think(step, observation)  # line 15: actions <- Worker(state)
        if not reply.tool_calls:
            return await self._no_tool_call(step, observation, reply)
        batch = await self._act(step, reply.tool_calls)  # lines 16-20
        record = StepRecord(step, observation.url, reply.content, tuple(batch.executed))
        self.history.record(record, observation)
        return batch.ending

    async def _observe(self, step: int) -> Observation:
        await self._stay_on_allowlist()  # a page may have moved on its own since the last step
        observation = await self.browser.observe(self.task.observation_mode)
        await self.sink.emit(EventType.observation, observation_event(step, observation))
        await self.sink.save_screenshot(step, await self.browser.screenshot())
        return observation

    async def _think(self, step: int, observation: Observation) -> LLMReply:
        messages = self.history.messages(observation, step)
        reply = await self.llm.chat(WORKER, messages, tools=WORKER_TOOLS, tool_choice="auto")
        self.usage.add(reply)
        await self.sink.emit(
            EventType.llm_call,
            {
                "step": step,
                "role": WORKER,
                "model": reply.model,
                "input_tokens": reply.input_tokens,
                "output_tokens": reply.output_tokens,
                "latency_s": round(reply.latency_s, 3),
                "finish_reason": reply.finish_reason,
                "tool_calls": len(reply.tool_calls),
            },
        )
        return reply

    async def _no_tool_call(self, step: int, seen: Observation, reply: LLMReply) -> Ending | None:
        """Nudge once; a second reply in a row without a tool call means the model gave up."""
        self.usage.nudges += 1
        previous_nudged, self._nudged_last = self._nudged_last, True
        self.history.record(StepRecord(step, seen.url, reply.content, ()), seen)
        if previous_nudged:
            return Ending(
                TaskStatus.failed,
                answer=reply.content,
                error=ErrorCode.gave_up,
                reason="the model stopped calling tools",
            )
        return None

    async def _act(self, step: int, calls: tuple[ToolCall, ...]) -> _Batch:
        """Execute up to five calls in order; a page change or `done` ends the batch."""
        self._nudged_last = False
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
            executed = await self._execute(step, call)
            batch.executed.append(executed)
            batch.ending = self._ending_after(executed)
            if batch.ending is not None:
                batch.stopped = "the run finished with an earlier call"
            elif _changed_page(executed):  # line 18: page-changing and r.success -> break
                batch.stopped = "an earlier action changed the page; re-read it first"
        return batch

    def _ending_after(self, executed: ExecutedCall) -> Ending | None:
        action = executed.action
        if action is None or action.name != DONE:
            return None
        success = bool(action.args["success"])
        return Ending(
            TaskStatus.succeeded if success else TaskStatus.failed,
            answer=str(action.args["answer"]),
            success=success,
            error=None if success else ErrorCode.gave_up,
            reason="done" if success else "the agent reported failure",
        )

    async def _execute(self, step: int, call: ToolCall) -> ExecutedCall:
        try:
            action = parse_action(call)
        except FeedbackError as exc:
            self.usage.feedback_errors += 1
            result = ToolResult(success=False, reason=exc.message, error=exc.error)
            await self._emit_action(step, Action(call.name, {}), result)
            return ExecutedCall(call, None, result)
        if action.name == DONE:
            result = ToolResult(success=True, reason="finished")
        else:
            result = await self.browser.execute(action)
            result = await self._stay_on_allowlist() or result
        signature = _signature(action)
        repeated = not result.success and signature in self._failed
        if not result.success:
            self._failed.add(signature)
        await self._emit_action(step, action, result)
        return ExecutedCall(call, action, result, repeated)

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


def _signature(action: Action) -> str:
    return f"{action.name}:{sorted(action.args.items())!r}"


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
    """The loop with an explicit history strategy (compressed, full, or a later ledger view)."""
    return await WorkerLoop(task, browser, llm, sink, history).run()


async def run_agent(task: AgentTask, browser: Browser, llm: LLM, sink: EventSink) -> AgentOutcome:
    """Run a task with compressed history (seed 003 §6) and return how it ended."""
    return await run_worker_loop(task, browser, llm, sink, CompressedHistory(task))
