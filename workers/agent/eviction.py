"""Six-phase cognitive eviction, seed 000 §5.3 Algorithm 3 and App. E.2 (eq. 3-6).

Runs before every model call over the live message list M (OpenAI chat dicts, block grammar
in `workers/agent/blocks.py`):

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

Every phase is a pure function of the messages (inputs are never mutated) and idempotent,
so E∘E = E (eq. 4); the Ledger only gains entries (eq. 6). Tool calls, tool_call_ids,
roles and the message count are never touched, so tool-call / tool-result pairs survive.
A *turn* starts at each user message; system messages are never evicted.

Deviation, documented: the paper marks gutted messages {"_archived": true}; here the body
"[archived]" is the mark, because OpenAI-compatible servers may refuse unknown message keys.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from workers.agent.blocks import (
    ELEMENTS_RE,
    LEDGER_RE,
    STATE_RE,
    Message,
    PageKey,
    is_image_part,
    ledger_block,
    state_keys,
    text_of,
)

SCREENSHOT_MARKER = "[screenshot from prior turn evicted]"
FAILURE_MARKER = "[failure collapsed]"
STATE_MARKER = "[page state evicted]"
ARCHIVED = "[archived]"
ARCHIVE_KIND = "archive"  # the episodic note kind of Phase 5
ELEMENTS_MARKER = "[older element list collapsed: list the elements again if you need them]"
REASONING_KEYS = ("reasoning_content", "reasoning", "thinking_blocks", "thinking")
_THINK_RE = re.compile(r"<(think|thinking)>.*?</\1>\s*", re.DOTALL)
DESCRIPTION_CHARS = 160

# ToolResult.error values -> the dead-end cause tags of seed 000 §5.2
CAUSES: Mapping[str, str] = {
    "navigation_failed": "network",
    "http_error": "network",
    "timeout": "network",
    "network": "network",
    "bot_block": "bot_block",
    "captcha": "bot_block",
    "stale_ref": "stale_selector",
    "ref_not_found": "stale_selector",
    "bad_ref": "stale_selector",
    "no_effect": "postcondition_miss",
    "covered": "postcondition_miss",
    "not_clickable": "postcondition_miss",
    "not_visible": "postcondition_miss",
    "disabled": "postcondition_miss",
    "blocked_url": "policy_block",
    "guard_violation": "policy_block",
    "rate_limit": "rate_limit",
    "handoff_timeout": "handoff_timeout",
    "approval_denied": "policy_block",
}


def cause_of(error: str | None) -> str:
    """The §5.2 cause tag for a ToolResult.error value ("generic" when none fits)."""
    return CAUSES.get(error or "", "generic")


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


@dataclass(frozen=True)
class CollapsedFailure:
    """A failed tool result Phase 2 collapsed: becomes a Ledger dead-end."""

    description: str
    url: str
    cause: str
    tool_call_id: str = ""


@dataclass(frozen=True)
class Phase:
    """One phase's output: the new message list and how many items it evicted."""

    messages: list[Message]
    count: int
    collapsed: tuple[CollapsedFailure, ...] = field(default=())


# --- helpers ---------------------------------------------------------------------------


def turn_starts(messages: Sequence[Message]) -> list[int]:
    return [i for i, m in enumerate(messages) if m.get("role") == "user"]


def older_than(messages: Sequence[Message], turns: int) -> int:
    """Index before which messages are older than the last `turns` turns (0: none are)."""
    starts = turn_starts(messages)
    return starts[-turns] if len(starts) > turns else 0


def _evictable(message: Mapping[str, Any]) -> bool:
    return message.get("role") != "system"


def _map_text(message: Message, fn: Callable[[str], str]) -> Message:
    """`message` with fn applied to its string content or to each text part (a copy)."""
    content = message.get("content")
    if isinstance(content, str):
        new: Any = fn(content)
    elif isinstance(content, list):
        new = [
            {**p, "text": fn(p["text"])}
            if p.get("type") == "text" and isinstance(p.get("text"), str)
            else p
            for p in content
        ]
    else:
        return message
    return message if new == content else {**message, "content": new}


# --- E1 ----------------------------------------------------------------------------------


def back_patch_screenshots(messages: Sequence[Message], k: int = 2) -> Phase:
    """E1: keep the last k image parts; older ones become a text marker, captions stay."""
    out, seen, count = list(messages), 0, 0
    for i in range(len(out) - 1, -1, -1):
        content = out[i].get("content")
        if not _evictable(out[i]) or not isinstance(content, list):
            continue
        parts = []
        for part in reversed(content):
            if is_image_part(part):
                seen += 1
                if seen > k:
                    count += 1
                    part = {"type": "text", "text": SCREENSHOT_MARKER}
            parts.append(part)
        parts.reverse()
        if parts != content:
            out[i] = {**out[i], "content": parts}
    return Phase(out, count)


# --- E2 ----------------------------------------------------------------------------------


def failure_payload(message: Mapping[str, Any]) -> dict[str, Any] | None:
    """The parsed ToolResult of a failed tool message, else None."""
    if message.get("role") != "tool" or not isinstance(message.get("content"), str):
        return None
    try:
        payload = json.loads(message["content"])
    except ValueError:
        return None
    if isinstance(payload, dict) and payload.get("success") is False:
        return payload
    return None


def _tool_names(messages: Sequence[Message]) -> dict[str, str]:
    names = {}
    for m in messages:
        for call in m.get("tool_calls") or ():
            names[str(call.get("id"))] = str(call.get("function", {}).get("name", "tool"))
    return names


def _url_before(messages: Sequence[Message], index: int) -> str:
    for m in reversed(messages[:index]):
        keys = [key for _, key in state_keys(text_of(m))]
        if keys:
            return keys[-1].url
    return ""


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= DESCRIPTION_CHARS else line[: DESCRIPTION_CHARS - 1] + "…"


def collapse_failed_tools(messages: Sequence[Message], k: int = 1) -> Phase:
    """E2: keep the last k failed tool results verbatim; older ones become one line each and
    are returned as dead-ends (description, url, cause)."""
    failed = [i for i, m in enumerate(messages) if failure_payload(m) is not None]
    older = failed[: max(len(failed) - k, 0)]
    out, names, collapsed = list(messages), _tool_names(messages), []
    for i in older:
        payload = failure_payload(messages[i]) or {}
        call_id = str(messages[i].get("tool_call_id", ""))
        error = str(payload.get("error") or "")
        reason = str(payload.get("reason") or "")
        description = _one_line(f"{names.get(call_id, 'tool')} failed ({error}): {reason}")
        url = str(payload.get("url") or _url_before(messages, i))
        collapsed.append(CollapsedFailure(description, url, cause_of(error), call_id))
        out[i] = {**messages[i], "content": f"{FAILURE_MARKER} {description}"}
    return Phase(out, len(collapsed), tuple(collapsed))


# --- E3 ----------------------------------------------------------------------------------


def current_page(messages: Sequence[Message]) -> PageKey | None:
    for m in reversed(messages):
        keys = [key for _, key in state_keys(text_of(m))] if _evictable(m) else []
        if keys:
            return keys[-1]
    return None


def collapse_stale_state_blocks(messages: Sequence[Message], k: int = 2) -> Phase:
    """E3: strip state blocks older than the last k turns, except at the current (url, title)."""
    current, count = current_page(messages), 0

    def one(match: re.Match[str]) -> str:
        nonlocal count
        if PageKey(json.loads(match["url"]), json.loads(match["title"])) == current:
            return match.group(0)  # the "you are stuck" signal
        count += 1
        return STATE_MARKER

    out = list(messages)
    for i in range(older_than(messages, k)):
        if _evictable(out[i]):
            out[i] = _map_text(out[i], lambda text: STATE_RE.sub(one, text))
    return Phase(out, count)


# --- E4 ----------------------------------------------------------------------------------


def _strip_reasoning(message: Message) -> Message:
    out = {k: v for k, v in message.items() if k not in REASONING_KEYS}
    out = _map_text(out, lambda t: _THINK_RE.sub("", t))
    if isinstance(out.get("content"), str) and not out["content"].strip():
        out["content"] = None if out.get("tool_calls") else "(no reply)"
    return out


def strip_stale_thinking_blocks(messages: Sequence[Message], k: int = 3) -> Phase:
    """E4: clear reasoning from assistant messages older than the most recent k; tool calls
    are never touched."""
    assistants = [i for i, m in enumerate(messages) if m.get("role") == "assistant"]
    out, count = list(messages), 0
    for i in assistants[: max(len(assistants) - k, 0)]:
        stripped = _strip_reasoning(out[i])
        if stripped != out[i]:
            out[i], count = stripped, count + 1
    return Phase(out, count)


# --- E5 ----------------------------------------------------------------------------------


def _pinned(messages: Sequence[Message]) -> int | None:
    """The task message: the first user message, when no assistant turn precedes it."""
    for i, m in enumerate(messages):
        if m.get("role") == "assistant":
            return None
        if m.get("role") == "user":
            return i
    return None


def _archived(message: Message) -> Message:
    out = {k: v for k, v in message.items() if k not in REASONING_KEYS}
    out["content"] = ARCHIVED
    return out


def gut_old_content(messages: Sequence[Message], keep_turns: int = 5, above: int = 30) -> Phase:
    """E5: when |M| > above, bodies older than the last keep_turns turns become "[archived]"
    (role, tool_call_id and tool_calls stay, so the count and the pairing are preserved)."""
    out = list(messages)
    if len(out) <= above:
        return Phase(out, 0)
    pinned, count = _pinned(out), 0
    for i in range(older_than(out, keep_turns)):
        if not _evictable(out[i]) or i == pinned or out[i].get("content") == ARCHIVED:
            continue
        out[i], count = _archived(out[i]), count + 1
    return Phase(out, count)


def archive_note(count: int, step: int) -> str:
    return f"archived {count} messages at iter {step}; ledger remains authoritative"


# --- E6 ----------------------------------------------------------------------------------


def _texts(message: Mapping[str, Any]) -> list[str]:
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    if isinstance(content, list):
        return [str(p["text"]) for p in content if p.get("type") == "text" and "text" in p]
    return []


def _replace_first(pattern: re.Pattern[str], n: int, marker: str) -> Callable[[str], str]:
    """A text transform replacing the first n matches, counted across successive calls."""
    left = n

    def sub(text: str) -> str:
        nonlocal left
        if left <= 0:
            return text
        new, done = pattern.subn(marker, text, count=left)
        left -= done
        return new

    return sub


def collapse_element_lists(messages: Sequence[Message], k: int = 1) -> Phase:
    """E6: keep the last k [ELEMENTS] blocks; older ones become a one-line re-list marker."""
    found = [
        sum(len(ELEMENTS_RE.findall(t)) for t in _texts(m)) if _evictable(m) else 0
        for m in messages
    ]
    drop = max(sum(found) - k, 0)
    out, left = list(messages), drop
    for i, n in enumerate(found):
        if left <= 0:
            break
        if n:
            out[i] = _map_text(out[i], _replace_first(ELEMENTS_RE, min(n, left), ELEMENTS_MARKER))
            left -= min(n, left)
    return Phase(out, drop)


# --- refresh -----------------------------------------------------------------------------


def refresh_ledger(messages: Sequence[Message], rendered: str) -> list[Message]:
    """Put the rendered Ledger into the system message's <ledger> block (added to the last
    leading system message when none has one; a system message is created when none exists)."""
    out, block = list(messages), ledger_block(rendered)
    for i, m in enumerate(out):
        if m.get("role") == "system" and LEDGER_RE.search(text_of(m)):
            out[i] = _map_text(m, lambda t: LEDGER_RE.sub(lambda _: block, t, count=1))
            return out
    leading = [i for i, m in enumerate(out) if m.get("role") == "system"]
    if not leading or leading[0] != 0:
        return [{"role": "system", "content": block}, *out]
    last = leading[0]
    while last + 1 < len(out) and out[last + 1].get("role") == "system":
        last += 1
    content = out[last].get("content")
    if isinstance(content, list):
        out[last] = {**out[last], "content": [*content, {"type": "text", "text": block}]}
    else:
        out[last] = {**out[last], "content": f"{content}\n\n{block}" if content else block}
    return out


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
