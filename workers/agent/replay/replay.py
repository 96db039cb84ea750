"""Replaying a proven route without model calls (issue 21; seed 000 §4.2, seed 001 App. A.4,
seed 004 §3.1 experience imitation).

A task whose start page's domain has a stored route of the same intent
(workers/agent/memory/routes.py `best_route`: same instruction up to the route's value slots) starts
by replaying it, procedurally, over the Browser protocol:

    for each route step:
        find its target (role + name + place, values substituted) in the current observation
        (an optional step — a popup's dismissal — whose target is not shown is skipped)
        execute the action (the loop's guards and approval gate apply as to any action)
        observe; check the expected effect: the URL pattern, one of the controls that
        appeared after it when it was recorded
        any miss -> stop: the full loop (AgentLoop) takes over from this page

Each replayed step is a run step with `step.started` / `observation` / `action.executed`
events marked `replayed: true`; the loop tells the Ledger what was replayed (the Worker sees
them as its recent steps, the last with what to do next) and emits `route.replayed` at the end
of the run: which steps were replayed, which the model decided, where it fell back and why.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urljoin

from workers.agent import textcut
from workers.agent.errors import TaskCancelled
from workers.agent.memory.ledger import ROUTE_REPLAYED, Ledger, StepOutcome
from workers.agent.memory.route_values import render, render_arg
from workers.agent.memory.routes import Route, RouteStep, Target, find, labels, url_matches
from workers.agent.protocols import Action, EventSink, Observation, ToolResult
from workers.agent.tools import redacted_args

FALLBACKS = {
    "target": "the element the route clicks next is not on this page",
    "effect": "the last replayed step did not have its recorded effect",
    "failed": "the last replayed step failed",
    "secret": "the next step types secret text, which routes never store",
    "limit": "the step limit was reached",
}
Act = Callable[[int, Action, Observation], Awaitable[ToolResult]]
Look = Callable[[int], Awaitable[Observation]]
Begin = Callable[[int], Awaitable[None]]


@dataclass(frozen=True)
class ReplayedStep:
    step: int  # the run step
    index: int  # the route step
    description: str
    url: str  # the page it was taken on
    result: ToolResult


@dataclass(frozen=True)
class ReplayReport:
    route: Route
    first: int  # the run step the replay started at
    steps: tuple[ReplayedStep, ...] = ()  # replayed with their effect seen
    skipped: int = 0
    fell_back_at: int | None = None  # route step index where the model takes over
    reason: str = ""
    failed: ReplayedStep | None = None  # executed, but its effect did not show
    last_step: int = 0  # the last run step the replay used (0: none)
    kind: str = ""  # FALLBACKS key: why it stopped, in words without page text
    end_url: str = ""  # the page the replay left the run on

    @property
    def complete(self) -> bool:
        """Every route step replayed (or an optional one skipped) with its effect seen."""
        return self.fell_back_at is None and self.failed is None and not self.kind

    @property
    def next_step(self) -> int:
        """The first run step the model decides."""
        return max(self.last_step + 1, self.first)

    def event(self, model_steps: Sequence[int]) -> dict[str, Any]:
        return {
            "route_id": self.route.id,
            "route_steps": len(self.route.steps),
            "replayed_steps": [s.step for s in self.steps],
            "model_steps": list(model_steps),
            "skipped": self.skipped,
            "fell_back_at": self.fell_back_at,
            "reason": self.reason,
        }

    def handover(self) -> str:
        """What the Worker should do next, for the Ledger (no text of an earlier run's page:
        the detailed reason is in the `route.replayed` event)."""
        if self.fell_back_at is None:
            return "the replayed route ended here: read what the task asks for on this page"
        why = FALLBACKS.get(self.kind, "the site differs")
        return f"the replay stopped ({why}): continue the task from this page"


@dataclass
class Replayer:
    """One replay of `route` with the task's `values` (by slot)."""

    route: Route
    values: Sequence[str]
    act: Act
    look: Look
    begin: Begin
    sink: EventSink
    max_steps: int
    done: list[ReplayedStep] = field(default_factory=list)
    at: str = ""  # the current page's URL

    async def run(self, first: int = 1) -> ReplayReport:
        step, skipped = first, 0
        await self.begin(step)
        state = await self.look(step)
        self.at, begun = state.url, step
        for index, route_step in enumerate(self.route.steps):
            if step > self.max_steps:
                return self._report(
                    first, skipped, index, "the step limit was reached", step - 1, "limit"
                )
            if not route_step.replayable:
                return self._report(
                    first, skipped, index, "its text is a secret", step - 1, "secret"
                )
            action, why = self.action(route_step, state)
            if action is None:
                if route_step.optional:
                    skipped += 1
                    continue
                return self._report(first, skipped, index, why, step - 1, "target")
            if await self.sink.cancel_requested():
                raise TaskCancelled("cancel requested")
            if begun != step:
                await self.begin(step)
                begun = step
            result = await self.act(step, action, state)
            after = await self.look(step)
            taken = ReplayedStep(step, index, call_text(action), state.url, result)
            problem = self.check(route_step, result, after)
            self.at = after.url
            if problem:
                kind = "effect" if result.success else "failed"
                report = self._report(first, skipped, index, problem, step, kind)
                return replace(report, failed=taken)
            self.done.append(taken)
            state, step = after, step + 1
        return self._report(first, skipped, None, "", step - 1, "")

    def _report(
        self, first: int, skipped: int, index: int | None, reason: str, last: int, kind: str
    ) -> ReplayReport:
        return ReplayReport(
            self.route,
            first,
            tuple(self.done),
            skipped,
            index,
            reason,
            last_step=last,
            kind=kind,
            end_url=self.at,
        )

    def action(self, step: RouteStep, state: Observation) -> tuple[Action | None, str]:
        """The route step as an action on this page (None and why when its target is gone)."""
        args = self.args(step.args)
        if isinstance(args.get("url"), str):  # stored relative to the start page's origin
            args["url"] = urljoin(state.url, args["url"])
        if step.target is not None:
            ref, why = self.locate(step.target, state)
            if ref is None:
                return None, why
            args["ref"] = ref
        if step.parts:  # fill_form's fields, bulk's actions (issue 34)
            compound, why = self.compound(step, state)
            if compound is None:
                return None, why
            args.update(compound)
        return Action(step.action, args), ""

    def args(self, stored: Mapping[str, Any]) -> dict[str, Any]:
        return {k: render_arg(k, v, self.values) for k, v in stored.items()}

    def locate(self, target: Target, state: Observation) -> tuple[str | None, str]:
        """The ref of a recorded target (values substituted) on this page, or why not."""
        wanted = Target(
            target.role,
            render(target.name, self.values),
            render(target.place, self.values),
            target.nth,
            render(target.heading, self.values),
            tuple(render(v, self.values) for v in target.row),
        )
        element = find(state.text, wanted)
        if element is None:
            where = " in ".join(("", *filter(None, (wanted.heading, wanted.place))))
            return None, f'no {wanted.role} "{wanted.name}"{where} on the page'
        return element.ref, ""

    def compound(self, step: RouteStep, state: Observation) -> tuple[dict[str, Any] | None, str]:
        """fill_form's `fields` (and `submit_ref`) or bulk's `actions`, each part's target
        found on this page."""
        fields, calls, out = [], [], dict[str, Any]()
        for part in step.parts:
            args = self.args(part.args)
            if part.target is not None:
                ref, why = self.locate(part.target, state)
                if ref is None:
                    return None, why
                args["ref"] = ref
            if part.action == "submit":
                out["submit_ref"] = args["ref"]
            elif part.action == "field":
                fields.append(args)
            else:
                calls.append({"tool": part.action, "args": args})
        out.update({"fields": fields} if step.action == "fill_form" else {"actions": calls})
        return out, ""

    def check(self, step: RouteStep, result: ToolResult, after: Observation) -> str:
        """'' when the step had its recorded effect, else what differed."""
        if not result.success:
            return f"{step.action} failed: {result.error or ''} {result.reason}".strip()
        if step.url and not url_matches(step.url, after.url, self.values):
            return f"it led to {after.url}, not to {render(step.url, self.values)}"
        if step.appeared:
            shown = {" ".join(lb.lower().split()) for lb in labels(after.text)}
            expected = [render(a, self.values) for a in step.appeared]
            if not any(" ".join(a.lower().split()) in shown for a in expected):
                return "none of " + ", ".join(expected[:2]) + " appeared after it"
        return ""


def call_text(action: Action) -> str:
    """`click(ref=5:3)`: the executed call as the Ledger's step lines write calls (refs and
    the task's values, no element names of an earlier run's page; secrets redacted)."""
    args = ", ".join(f"{k}={textcut.cut(str(v), 60)}" for k, v in redacted_args(action).items())
    return f"{action.name}({args})"


def tell_ledger(ledger: Ledger, report: ReplayReport) -> None:
    """The replayed steps as the Ledger's steps (the Worker reads them as its recent steps;
    the last says what to do next), a checkpoint for the Planner and an episodic note."""
    taken = [*report.steps, *([report.failed] if report.failed else [])]
    for i, done in enumerate(taken):
        last = i == len(taken) - 1
        ok = done.result.success and done is not report.failed
        outcome = "ok" if ok else "its recorded effect did not show"
        ledger.record_step(
            StepOutcome(
                step=done.step,
                url=done.url,
                actions=(f"{done.description} -> {outcome} (replayed)",),
                success=ok,
                error=None if ok else (done.result.error or "postcondition_miss"),
                reason="" if ok else FALLBACKS.get(report.kind, ""),
                evaluation="replayed from a proven route of this site (no model call)",
                next_goal=report.handover() if last else "",
            )
        )
    total = len(report.route.steps)
    summary = f"replayed {len(report.steps)} of {total} steps of a proven route of this site"
    if report.fell_back_at is not None:
        summary += f"; stopped at route step {report.fell_back_at + 1}"
    url = report.end_url or (taken[-1].url if taken else "")
    ledger.add_checkpoint(
        ROUTE_REPLAYED, f"{summary}: {replayed_actions(report)}", url, report.last_step
    )
    ledger.note(summary + "; " + report.handover(), report.last_step)


def replayed_actions(report: ReplayReport) -> str:
    """Every replayed call with its values on one line (`step 2 select_option(...) -> ok`),
    so a reviewer sees the filters that the last recent steps no longer show."""
    parts = [f"step {s.step} {s.description} -> ok" for s in report.steps]
    if report.failed is not None:
        parts.append(f"step {report.failed.step} {report.failed.description} -> effect missing")
    return "; ".join(parts) or "(none)"
