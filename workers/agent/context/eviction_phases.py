"""The six phases of seed 000 Algorithm 3 (E1-E6) and the Ledger refresh, as pure functions.

Each takes the message list and its own `k`, never mutates its input, is idempotent, and
returns a `Phase`: the new list and how many items it evicted (E2 also the collapsed failures,
which the caller writes to the Ledger as dead ends). `workers/agent/context/eviction.py`
composes them.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from workers.agent import textcut
from workers.agent.context.blocks import (
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
from workers.agent.memory.dead_end_causes import cause_of

SCREENSHOT_MARKER = "[screenshot from prior turn evicted]"
FAILURE_MARKER = "[failure collapsed]"
STATE_MARKER = "[page state evicted]"
ARCHIVED = "[archived]"
ARCHIVE_KIND = "archive"  # the episodic note kind of Phase 5
ELEMENTS_MARKER = "[older element list collapsed: list the elements again if you need them]"
REASONING_KEYS = ("reasoning_content", "reasoning", "thinking_blocks", "thinking")
_THINK_RE = re.compile(r"<(think|thinking)>.*?</\1>\s*", re.DOTALL)
DESCRIPTION_CHARS = 160


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
    return textcut.clip(line, DESCRIPTION_CHARS)


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
