"""One turn's tool calls, executed in order: seed 000 Algorithm 1 lines 16-20.

    foreach a in actions:
        r <- Execute(a, page); L <- Ingest(L, a, r, state.url)
        if a is page-changing and r.success: break

At most MAX_ACTIONS_PER_STEP calls run; the rest of the batch is answered `skipped` once a call
changed the page, called `done` or failed: the later calls were decided before that failure
(a submit after a refused `type` would send a wrong form), as `bulk` stops at a failure.
Failed actions become Ledger dead ends, except failures that say "re-read the page" rather
than "this path leads nowhere".
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from app.contracts import EventType
from workers.agent import textcut
from workers.agent.context.history import ExecutedCall
from workers.agent.errors import FeedbackError, TaskCancelled
from workers.agent.loop.brain import describe_action, element_label
from workers.agent.loop.endings import Usage
from workers.agent.loop.step_events import action_event
from workers.agent.memory.dead_end_causes import cause_of
from workers.agent.memory.ledger import Ledger, page_fingerprint
from workers.agent.people.navigation import GuardedNavigation
from workers.agent.people.task_profiles import ProfileGuard
from workers.agent.protocols import Action, EventSink, Observation, ToolCall, ToolResult
from workers.agent.roles.planner import CompletionClaim
from workers.agent.tools import DONE, MAX_ACTIONS_PER_STEP, is_page_changing, parse_action
from workers.agent.tools.offer import ToolOffer
from workers.agent.tools.registry import MORE_TOOLS

# failures that say "re-read the page", not "this path leads nowhere"
NOT_DEAD_ENDS = frozenset(
    {
        "skipped",
        "stale_ref",
        "bad_ref",
        "ref_not_found",
        "invalid_tool_call",
        "unknown_tool",
        "guessed_url",  # a refused guess says nothing about the site
        "no_change",  # the control answered with the same page: not dead (issue 27 item 2)
    }
)
page_state = page_fingerprint  # the same action on another state of the page is no repeat


def _bare(url: str) -> str:
    return url.split("#", 1)[0].rstrip("/")


def after_failure(call: ExecutedCall) -> str:
    """Why the calls after a failed one are skipped (they were decided before it)."""
    error = call.result.error or "failed"
    return f"an earlier action of this turn failed ({call.call.name}: {error}); read it first"


@dataclass
class Batch:
    executed: list[ExecutedCall] = field(default_factory=list)
    claim: CompletionClaim | None = None  # the Worker called done
    stopped: str = ""  # why the remaining calls of the batch are skipped

    def skip(self, call: ToolCall, why: str) -> None:
        skipped = ToolResult(success=False, reason=why, error="skipped")
        self.executed.append(ExecutedCall(call, None, skipped))


def _tools_of(action: Action) -> list[str]:
    """The tool an action calls, and a bulk call's inner tools."""
    inner = action.args.get("actions", ()) if action.name == "bulk" else ()
    return [action.name, *(str(step.get("tool")) for step in inner)]


def changed_page(executed: ExecutedCall) -> bool:
    """Algorithm 1 line 18: a page-changing action that succeeded ends the batch."""
    action, result = executed.action, executed.result
    if action is None or not result.success:
        return False
    return result.page_changed or is_page_changing(action)


@dataclass
class BatchRunner:
    """Executes a turn's calls against the browser and ingests each result into the Ledger."""

    sink: EventSink
    navigation: GuardedNavigation
    profile: ProfileGuard
    ledger: Ledger
    usage: Usage
    offer: ToolOffer

    async def run(self, step: int, calls: tuple[ToolCall, ...], state: Observation) -> Batch:
        batch = Batch()
        for index, call in enumerate(calls):
            if index >= MAX_ACTIONS_PER_STEP and not batch.stopped:
                batch.stopped = f"at most {MAX_ACTIONS_PER_STEP} actions run per step"
            if batch.stopped:
                batch.skip(call, batch.stopped)
                continue
            if await self.sink.cancel_requested():  # no action (nor `done`) after a cancel
                raise TaskCancelled("cancel requested")
            executed = await self.execute(step, call, state)
            batch.executed.append(executed)
            if executed.action is not None and executed.action.name == DONE:
                args = executed.action.args
                batch.claim = CompletionClaim(
                    str(args["answer"]), bool(args["success"]), step, args.get("data")
                )
                batch.stopped = "the run finished with an earlier call"
            elif not executed.result.success:
                batch.stopped = after_failure(executed)
            elif changed_page(executed):
                batch.stopped = "an earlier action changed the page; re-read it first"
        return batch

    async def execute(self, step: int, call: ToolCall, state: Observation) -> ExecutedCall:
        """Execute(a, page) and Ingest(L, a, r, state.url) for one call."""
        try:
            action = parse_action(call)
        except FeedbackError as exc:
            self.usage.feedback_errors += 1
            result = ToolResult(success=False, reason=exc.message, error=exc.error)
            await self.emit(step, Action(call.name, {}), result)
            return ExecutedCall(call, None, result)
        refusal = await self.profile.check_on(self.navigation.browser, action, state.text)  # §9.3
        if refusal is not None:
            result = refusal
        elif action.name == DONE:
            result = ToolResult(success=True, reason="finished")
        elif action.name == MORE_TOOLS:
            result = self.offer.more_tools(action.args.get("enable", ()))
        else:
            # more_tools inside a bulk enables its tools here, and the bulk runs on without it
            inner = action.args.get("actions", ()) if action.name == "bulk" else ()
            asked = [s for s in inner if s["tool"] == MORE_TOOLS]
            enabled = None
            if asked:
                wanted = [n for s in asked for n in s["args"].get("enable", ())]
                enabled = self.offer.more_tools(wanted)
                rest = [s for s in inner if s["tool"] != MORE_TOOLS]
                action = Action(action.name, {**action.args, "actions": rest})
            self.offer.enable(_tools_of(action))  # a tool it was not offered, now it is
            if enabled is not None and not action.args["actions"]:
                result = enabled
            else:
                result = await self.navigation.execute(action)
                if enabled is not None:
                    result = replace(result, reason=f"{enabled.reason}; {result.reason or ''}")
        repeated = self.ingest(step, action, result, state)
        await self.emit(step, action, result)
        return ExecutedCall(call, action, result, repeated)

    def ingest(self, step: int, action: Action, result: ToolResult, state: Observation) -> bool:
        """Ingest(L, a, r, state.url): a failure becomes a dead end; True if it was one."""
        if result.success or (result.error or "") in NOT_DEAD_ENDS:
            return False
        if self.restarts(action, state.url):  # issue 34: a reload is never a dead end
            return False
        description, signature = describe_action(action, state.text)
        target = element_label(state.text, str(action.args["ref"])) if "ref" in action.args else ""
        page = page_state(state.text)
        repeated = self.ledger.is_dead_end(state.url, signature, page)
        reason = textcut.cut(" ".join((result.reason or result.error or "failed").split()), 120)
        self.ledger.mark_dead_end(
            f"{description} failed: {reason}",
            state.url,
            cause_of(result.error),
            step=step,
            signature=signature,
            target=target,
            state=page,
        )
        return repeated

    def restarts(self, action: Action, here: str) -> bool:
        """A reload, or a navigation back to the start page or to the page it is on (the
        only way to restart a game): never "led nowhere" for later runs (issue 34)."""
        if action.name == "reload":
            return True
        if action.name != "navigate":
            return False
        url = _bare(str(action.args.get("url") or ""))
        return bool(url) and url in (_bare(self.navigation.start_url), _bare(here))

    async def emit(self, step: int, action: Action, result: ToolResult) -> None:
        await self.sink.emit(EventType.action_executed, action_event(step, action, result))
