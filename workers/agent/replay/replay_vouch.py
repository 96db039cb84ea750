"""A verified replay vouches for a claim in place of the Planner's check (issue 21, call
budget; seed 001 App. A.4's verification pass is skipped only here).

A proven route replayed with every step's recorded effect seen (URL pattern or controls that
appeared after it) leaves the run on the page the route ended on when it was proven. If the
Worker then claims success from that page, reading only (no action besides read tools and
`done`), and every checkable value of its answer is on a page the run saw (the answer
check's lookup, workers/agent/judge/answer_check.py, nothing derived), the claim is accepted
without the Planner's verification call. The acceptance is written to the Ledger (a
`verified` checkpoint) and to the `plan.updated` event (`verified_by`). Any other success
claim — a partial replay, a fallback, a value no page showed — goes to the Planner as before;
the service's answer check still runs after the run (workers/adapters/results.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from workers.agent.context.history import ExecutedCall
from workers.agent.judge.answer_check import claims_in
from workers.agent.judge.claims import SeenText
from workers.agent.judge.grounding import READING, result_texts
from workers.agent.protocols import Observation
from workers.agent.replay.replay import ReplayReport
from workers.agent.roles.planner import CompletionClaim
from workers.agent.tools import DONE

VERIFIED_BY = "route_replay+answer_check"


class ReplayVouch:
    """What the run saw (observations and read-tool results), for the claim's lookup."""

    def __init__(self) -> None:
        self.seen = SeenText()

    def saw(self, observation: Observation) -> None:
        self.seen.add(f"{observation.url}\n{observation.title}\n{observation.text}")

    def read(self, executed: Sequence[ExecutedCall]) -> None:
        for ex in executed:
            if ex.action is not None and ex.action.name in READING and ex.result.success:
                self.seen.add("\n".join([ex.result.reason or "", *result_texts(ex.result.data)]))

    def vouches(
        self,
        report: ReplayReport | None,
        claim: CompletionClaim,
        state: Observation,
        executed: Sequence[ExecutedCall],
    ) -> bool:
        """True when the replay and the answer check together verify this success claim."""
        if report is None or not claim.success or not verified_replay(report):
            return False
        if state.url != report.end_url:  # the Worker moved on: its claim is its own
            return False
        others = [ex for ex in executed if ex.action is None or ex.action.name != DONE]
        if any(ex.action is None or ex.action.name not in READING for ex in others):
            return False
        self.read(executed)
        verdict = self.seen.check(claims_in(claim.answer, claim.data))
        return bool(verdict.seen) and not verdict.unseen and not verdict.derived


def verified_replay(report: ReplayReport) -> bool:
    """Every route step replayed to the end, each with a recorded effect that was seen."""
    if not report.complete or not report.steps or not report.end_url:
        return False
    steps = report.route.steps
    return all(steps[s.index].url or steps[s.index].appeared for s in report.steps)
