"""Six-phase cognitive eviction, seed 000 §5.3 Algorithm 3 and App. E.2 (eq. 3-6).

Runs before every model call over the live message list M (OpenAI chat dicts, block grammar
in `workers/agent/context/blocks.py`):

    E1 BackPatchScreenshots(M, k=2)       older image parts -> "[screenshot from prior turn
                                          evicted]"; their caption text parts stay
    E2 CollapseFailedTools(M, k=1)        older failed tool results -> one line, each returned
                                          as a dead-end for L.MarkDeadEnd(reason, url, cause)
    E3 CollapseStaleStateBlocks(M, k=2)   [SESSION_STATE] blocks older than the last 2 turns go,
                                          except those at the current (url, title): "stuck"
    E4 StripStaleThinkingBlocks(M, k=3)   reasoning of assistant messages older than the last 3
    E5 GutOldContent(M, keepTurns=5)      only when |M| > 30: bodies older than the last 5 turns
                                          become "[archived]", message count preserved; one
                                          episodic note "archived _ messages at iter _; ledger
                                          remains authoritative"
    E6 CollapseElementLists(M, k=1)       older [ELEMENTS] blocks -> a one-line re-list marker
    then RefreshLedgerInSystemMessage(M, L.RenderForLLM())

Every phase (workers/agent/context/eviction_phases.py) is a pure function of the messages (inputs
are never mutated) and idempotent, so E∘E = E (eq. 4); the Ledger only gains entries
(eq. 6). Tool calls, tool_call_ids, roles and the message count are never touched, so
tool-call / tool-result pairs survive.
A *turn* starts at each user message; system messages are never evicted.

Deviation, documented: the paper marks gutted messages {"_archived": true}; here the body
"[archived]" is the mark, because OpenAI-compatible servers may refuse unknown message keys.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from workers.agent.context.blocks import Message
from workers.agent.context.eviction_phases import (
    ARCHIVE_KIND,
    ARCHIVED,
    ELEMENTS_MARKER,
    FAILURE_MARKER,
    SCREENSHOT_MARKER,
    STATE_MARKER,
    CollapsedFailure,
    Phase,
    archive_note,
    back_patch_screenshots,
    collapse_element_lists,
    collapse_failed_tools,
    collapse_stale_state_blocks,
    failure_payload,
    gut_old_content,
    older_than,
    refresh_ledger,
    strip_stale_thinking_blocks,
)
from workers.agent.memory.dead_end_causes import CAUSES, cause_of

__all__ = [
    "ARCHIVED",
    "ARCHIVE_KIND",
    "CAUSES",
    "ELEMENTS_MARKER",
    "FAILURE_MARKER",
    "PHASES",
    "SCREENSHOT_MARKER",
    "STATE_MARKER",
    "CollapsedFailure",
    "Eviction",
    "EvictionConfig",
    "EvictionLedger",
    "Phase",
    "archive_note",
    "back_patch_screenshots",
    "cause_of",
    "collapse_element_lists",
    "collapse_failed_tools",
    "collapse_stale_state_blocks",
    "evict",
    "failure_payload",
    "gut_old_content",
    "older_than",
    "refresh_ledger",
    "strip_stale_thinking_blocks",
]


@dataclass(frozen=True)
class EvictionConfig:
    """Algorithm 3's constants."""

    screenshots_kept: int = 2
    failures_kept: int = 1
    state_turns_kept: int = 2
    reasoning_kept: int = 3
    gut_above: int = 30
    gut_keep_turns: int = 5
    element_lists_kept: int = 1


L = TypeVar("L", bound="EvictionLedger")


# --- Algorithm 3 -------------------------------------------------------------------------


class EvictionLedger(Protocol):
    """What Algorithm 3 writes to the Ledger: L.MarkDeadEnd (line 5) and L.Note (line 12)."""

    def mark_dead_end(self, description: str, url: str, cause: str) -> object: ...

    def note(self, text: str, step: int, kind: str = "note") -> object: ...


PHASES = ("screenshots", "failures", "state_blocks", "reasoning", "archived", "element_lists")


@dataclass(frozen=True)
class Eviction:
    """The evicted message list, the per-phase counts and what went into the Ledger."""

    messages: list[Message]
    counts: Mapping[str, int]
    dead_ends: tuple[CollapsedFailure, ...] = ()
    notes: tuple[str, ...] = ()

    @property
    def evicted(self) -> int:
        return sum(self.counts.values())

    def event(self, step: int) -> dict[str, Any]:
        """Payload of the `memory.evicted` event."""
        return {
            "step": step,
            "counts": dict(self.counts),
            "dead_ends": len(self.dead_ends),
            "notes": list(self.notes),
            "messages": len(self.messages),
        }


def evict(
    messages: Sequence[Message],
    ledger: L,
    *,
    step: int,
    render: Callable[[L], str],
    config: EvictionConfig = EvictionConfig(),
) -> Eviction:
    """Algorithm 3: E = E6∘E5∘E4∘E3∘E2∘E1, Ledger writes, then the Ledger refresh.

    `render(ledger)` is called after the phases wrote to the Ledger (RenderForLLM).
    `messages` is not mutated; the Ledger gains the dead-ends and the note.
    """
    e1 = back_patch_screenshots(messages, config.screenshots_kept)
    e2 = collapse_failed_tools(e1.messages, config.failures_kept)
    for failure in e2.collapsed:
        ledger.mark_dead_end(failure.description, failure.url, failure.cause)
    e3 = collapse_stale_state_blocks(e2.messages, config.state_turns_kept)
    e4 = strip_stale_thinking_blocks(e3.messages, config.reasoning_kept)
    e5 = gut_old_content(e4.messages, config.gut_keep_turns, config.gut_above)
    notes = (archive_note(e5.count, step),) if e5.count else ()
    for note in notes:
        ledger.note(note, step, ARCHIVE_KIND)
    e6 = collapse_element_lists(e5.messages, config.element_lists_kept)
    counts = dict(zip(PHASES, (p.count for p in (e1, e2, e3, e4, e5, e6)), strict=True))
    return Eviction(refresh_ledger(e6.messages, render(ledger)), counts, e2.collapsed, notes)
