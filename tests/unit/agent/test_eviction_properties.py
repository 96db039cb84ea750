"""Seed 000 App. E.2 invariants of the eviction operator, over generated transcripts:
idempotence E∘E = E (eq. 4), Ledger conservation (eq. 6), tool-call / tool-result pairing."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from workers.agent.context import eviction as ev
from workers.agent.context.blocks import (
    ELEMENTS_RE,
    elements_block,
    ledger_block,
    state_block,
    text_of,
)
from workers.agent.context.views import planner_view, render_planner
from workers.agent.memory.ledger import Ledger

Message = dict[str, Any]

PAGES = [("https://s.test/", "Home"), ("https://s.test/cart", "Cart"), ("https://o.test/", "O")]
ERRORS = ["no_effect", "stale_ref", "navigation_failed", "blocked_url", "weird", ""]


class CountingLedger:
    def __init__(self, dead_ends: int = 0, notes: int = 0) -> None:
        self.dead_ends: list[tuple[str, str, str]] = [("seed", "", "generic")] * dead_ends
        self.notes: list[str] = ["seed"] * notes

    def mark_dead_end(self, description: str, url: str, cause: str) -> None:
        self.dead_ends.append((description, url, cause))

    def note(self, text: str, step: int, kind: str = "note") -> None:
        assert kind == ev.ARCHIVE_KIND
        self.notes.append(f"{step}:{text}")

    def size(self) -> int:
        return len(self.dead_ends) + len(self.notes)

    def render(self) -> str:
        return f"{len(self.dead_ends)} dead ends, {len(self.notes)} notes"


@st.composite
def observation(draw: st.DrawFn) -> Message:
    url, title = draw(st.sampled_from(PAGES))
    text = state_block(url, title, draw(st.text(max_size=20)))
    if draw(st.booleans()):
        text += "\n" + elements_block(draw(st.text(max_size=20)), "v=1")
    if not draw(st.booleans()):
        return {"role": "user", "content": text}
    parts: list[dict[str, Any]] = [{"type": "text", "text": text}]
    parts += [{"type": "image_url", "image_url": {"url": "data:x"}}] * draw(st.integers(1, 2))
    return {"role": "user", "content": parts}


@st.composite
def turn(draw: st.DrawFn, index: int) -> list[Message]:
    messages = [draw(observation())]
    calls = draw(st.integers(0, 3))
    content = draw(st.sampled_from([None, "ok", "<think>plan</think>go"]))
    reply: Message = {"role": "assistant", "content": content if calls else (content or "hm")}
    if draw(st.booleans()):
        reply["reasoning_content"] = draw(st.text(max_size=10))
    ids = [f"t{index}_{c}" for c in range(calls)]
    if ids:
        reply["tool_calls"] = [
            {"id": i, "type": "function", "function": {"name": "click", "arguments": "{}"}}
            for i in ids
        ]
    messages.append(reply)
    for call_id in ids:
        ok = draw(st.booleans())
        payload: dict[str, Any] = {"success": ok}
        if not ok:
            payload.update(error=draw(st.sampled_from(ERRORS)), reason=draw(st.text(max_size=15)))
        messages.append({"role": "tool", "tool_call_id": call_id, "content": json.dumps(payload)})
    return messages


@st.composite
def transcript(draw: st.DrawFn) -> list[Message]:
    system = "static prompt"
    if draw(st.booleans()):
        system += "\n\n" + ledger_block("stale ledger")
    messages: list[Message] = [{"role": "system", "content": system}]
    messages.append({"role": "user", "content": "the task"})
    for i in range(draw(st.integers(0, 16))):
        messages += draw(turn(i))
    return messages


def run(messages: list[Message], ledger: CountingLedger, step: int = 7) -> ev.Eviction:
    return ev.evict(messages, ledger, step=step, render=CountingLedger.render)


def pairing(messages: list[Message]) -> list[tuple[str, Any]]:
    """Roles, tool_call_ids and tool_calls in order: what the chat API checks."""
    return [(m["role"], m.get("tool_call_id") or m.get("tool_calls")) for m in messages]


@settings(max_examples=150, deadline=None)
@given(transcript())
def test_idempotent(messages: list[Message]) -> None:
    ledger = CountingLedger()
    first = run(messages, ledger)
    size = ledger.size()
    second = run(first.messages, ledger)
    assert second.messages == first.messages
    assert second.evicted == 0
    assert ledger.size() == size  # E2 does not re-read what it evicted


@settings(max_examples=150, deadline=None)
@given(transcript(), st.integers(0, 3), st.integers(0, 3))
def test_ledger_only_grows(messages: list[Message], dead: int, notes: int) -> None:
    ledger = CountingLedger(dead, notes)
    result = run(messages, ledger)
    assert len(ledger.dead_ends) == dead + result.counts["failures"]
    assert len(ledger.notes) == notes + (1 if result.counts["archived"] else 0)


@settings(max_examples=150, deadline=None)
@given(transcript())
def test_never_splits_tool_pairs_or_changes_the_count(messages: list[Message]) -> None:
    result = run(messages, CountingLedger())
    assert len(result.messages) == len(messages)
    assert pairing(result.messages) == pairing(messages)
    for i, m in enumerate(result.messages):
        for call in m.get("tool_calls") or ():
            answers = [r for r in result.messages[i + 1 :] if r.get("tool_call_id") == call["id"]]
            assert len(answers) == 1


@settings(max_examples=100, deadline=None)
@given(transcript())
def test_bounded_live_window(messages: list[Message]) -> None:
    """At most 2 screenshots, 1 element list, 1 verbatim failure survive."""
    out = run(messages, CountingLedger()).messages
    images = sum(
        1 for m in out if isinstance(m["content"], list) for p in m["content"] if "image_url" in p
    )
    assert images <= 2
    assert sum(len(ELEMENTS_RE.findall(text_of(m))) for m in out) <= 1
    assert sum(1 for m in out if ev.failure_payload(m) is not None) <= 1
    assert sum(text_of(m).count("<ledger>") for m in out if m["role"] == "system") == 1


@settings(max_examples=100, deadline=None)
@given(transcript())
def test_conservation_on_the_real_ledger(messages: list[Message]) -> None:
    """Eq. 6 with ||L||_sem of the Ledger itself; the journal carries every write."""
    ledger = Ledger(goal="the task")
    ledger.record_fact("k", "v")
    ledger.drain()
    size = ledger.semantic_size()
    result = ev.evict(
        messages, ledger, step=3, render=lambda led: render_planner(planner_view(led))
    )
    assert ledger.semantic_size() >= size
    kinds = [change.kind for change in ledger.drain()]
    assert kinds.count("episodic") == (1 if result.counts["archived"] else 0)
    assert kinds.count("dead_end") <= result.counts["failures"]  # duplicates are merged
    assert ledger_block(render_planner(planner_view(ledger))) in result.messages[0]["content"]
