"""Judgements over several actions, kept by the hand (click.py) for one task.

`DeadClickGuard` is seed 000 §4.5's dead-click guard with its toggle exemption; `StallMonitor`
is the strategic pattern analysis of seed 004 App. F.2.4 (repeated identical failures or a
high recent failure rate → a warning to reconsider the strategy or stop).
"""

from __future__ import annotations

import json
from collections import deque
from dataclasses import dataclass, field, replace

from workers.agent.protocols import Action, ToolResult


@dataclass(frozen=True)
class _Click:
    key: str
    mutations: int
    active: bool


class DeadClickGuard:
    """Seed 000 §4.5: the same target clicked twice in a row with mutation_delta = 0 is
    refused (re-observe first), unless its active state flipped between the attempts."""

    def __init__(self) -> None:
        self._last: _Click | None = None

    def refuses(self, key: str, active_now: bool) -> bool:
        last = self._last
        return (
            last is not None
            and last.key == key
            and last.mutations == 0
            and last.active == active_now  # toggle exemption: the state flipped
        )

    def record(self, key: str, mutations: int, active_before: bool) -> None:
        self._last = _Click(key, mutations, active_before)

    def reset(self) -> None:
        """Any other action breaks the "twice in a row"."""
        self._last = None


STALL_REPEATS = 3  # consecutive identical failures
STALL_WINDOW, STALL_FAILURES = 6, 4  # or this many failures among the last steps
STALL_WARNING = (
    "Warning: you seem to be stalling ({why}). Reconsider the strategy: observe the page "
    "again, use a different element, tool or route, or finish with done and say what blocks you."
)


@dataclass
class StallMonitor:
    """Seed 004 App. F.2.4: warn when identical failures repeat or most recent steps fail."""

    recent: deque[tuple[str, bool]] = field(default_factory=lambda: deque(maxlen=STALL_WINDOW))

    @staticmethod
    def key(action: Action) -> str:
        args = json.dumps(dict(action.args), sort_keys=True, default=str)
        return f"{action.name}|{args}"

    def check(self, action: Action, result: ToolResult) -> ToolResult:
        self.recent.append((self.key(action), result.success))
        if result.success:
            return result
        tail = list(self.recent)[-STALL_REPEATS:]
        repeated = len(tail) == STALL_REPEATS and len({k for k, ok in tail if not ok}) == 1
        repeated = repeated and not any(ok for _, ok in tail)
        failures = sum(1 for _, ok in self.recent if not ok)
        if repeated:
            why = f"the same action failed {STALL_REPEATS} times in a row"
        elif failures >= STALL_FAILURES:
            why = f"{failures} of the last {len(self.recent)} actions failed"
        else:
            return result
        warning = STALL_WARNING.format(why=why)
        return replace(
            result,
            reason=f"{result.reason} {warning}",
            data={**result.data, "stalling": why},
        )
