"""When a periodic Planner review is worth a model call (seed 000 §4.1, Algorithm 1 line 10).

Algorithm 1 re-evaluates progress every N steps. The evaluation itself needs no model: the
steps since the Planner's last call show whether the Worker is moving. `Progress` keeps, per
Worker step since that call, the page state it acted on (`page_fingerprint`, refs' versions
left out) and what it did (its actions by element name, as dead ends are named); the
periodic review calls the Planner only when those steps show the Worker is not moving:

- a loop: the same actions on the same page state leading to the same page state twice
  (a deliberate revisit that leads elsewhere the second time, e.g. back to a form to add a
  field and on again, is no loop), or
- a standstill: every step since the last review acted on one page state that is still
  the page now.

A run that goes on from page to page keeps the Worker alone between the triggers that ask
for a replan anyway (failed steps in a row, a completion claim, the start when configured).
Issue 33 measured the unconditional review: three Planner calls on a 10-step relay run that
changed no action, 1.4x the Worker-alone calls
(tests/integration/browser/test_brain_calls.py holds the brain to the Worker's calls + 1).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Move:
    """One Worker step as the cadence sees it."""

    state: str  # fingerprint of the page the step acted on
    actions: str  # the step's actions by element name ('' for none)


@dataclass
class Progress:
    """The Worker's steps since the Planner's last call."""

    moves: list[Move] = field(default_factory=list)

    def add(self, state: str, actions: str) -> None:
        self.moves.append(Move(state, actions))

    def reset(self) -> None:
        self.moves.clear()

    def stalled(self, now: str) -> str | None:
        """Why the steps since the last review show no progress (None: they do); `now`:
        the fingerprint of the page observed for the coming step."""
        if not self.moves:
            return None
        after = [m.state for m in self.moves[1:]] + [now]
        seen: set[tuple[Move, str]] = set()
        for move, led_to in zip(self.moves, after, strict=True):
            if (move, led_to) in seen:
                return "loop"
            seen.add((move, led_to))
        if len(self.moves) > 1 and {m.state for m in self.moves} == {now}:
            return "standstill"
        return None
