"""The Worker: the operational layer (seed 000 §4.1; seed 003 §6.3 memory fields).

It sees its role-sliced view of the Ledger and the current page and answers with tool calls
(at most five run per step; a successful page-changing or a failed action ends the batch) plus
the self-summary of seed 003 §6.3: `evaluation_previous_goal`, `memory`, `next_goal`, written as
a JSON object in the message content or as extra arguments of a tool call. Optional `facts`
({key: value}) and `checklist` ({"id", "status"}) feed the Ledger too; on the first turn
`checklist` is the list of 2-6 items of seed 004 §3.2 (the Ledger's checklist from step 1).

A reply with no tool call whose text spells an action as JSON ({"action": "click", "args":
{...}}, {"name": ..., "arguments": ...} or a list under "actions") is parsed with seed 002's
4-level JSON fallback and executed; only a reply with neither counts as a nudge.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from workers.agent.memory.ledger import CHECKLIST_STATUSES
from workers.agent.protocols import LLM, LLMReply, ToolCall
from workers.agent.roles.base import Message, RoleCall, as_text, parse_json_object

WORKER = "worker"
NOTE_KEYS = ("evaluation_previous_goal", "memory", "next_goal", "facts", "checklist")
_NAME_KEYS = ("action", "tool", "name", "function")
_ARG_KEYS = ("args", "arguments", "parameters", "params", "input")
_LIST_KEYS = ("actions", "tool_calls", "calls")
MAX_FACTS_PER_STEP = 5


@dataclass(frozen=True)
class WorkerNotes:
    """What the Worker says about its own progress; feeds the Ledger, not a transcript."""

    evaluation: str = ""
    memory: str = ""
    next_goal: str = ""
    facts: tuple[tuple[str, str], ...] = ()
    checklist: tuple[int, str] | None = None
    plan: tuple[str, ...] = ()  # a new checklist's items (the first turn's `checklist` list)


@dataclass(frozen=True)
class WorkerTurn:
    calls: tuple[ToolCall, ...]
    notes: WorkerNotes
    content: str | None = None  # the reply's text as the model wrote it
    from_text: bool = False  # the calls were read from the reply's text


def _checklist(value: Any) -> tuple[int, str] | None:
    if not isinstance(value, Mapping) or value.get("status") not in CHECKLIST_STATUSES:
        return None
    try:
        return int(value["id"]), str(value["status"])
    except (KeyError, TypeError, ValueError):
        return None


def _plan(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(as_text(v) for v in value if as_text(v))


def _facts(value: Any) -> tuple[tuple[str, str], ...]:
    if not isinstance(value, Mapping):
        return ()
    pairs = [(as_text(k), as_text(v)) for k, v in value.items() if as_text(k) and as_text(v)]
    return tuple(pairs[:MAX_FACTS_PER_STEP])


def notes_from(sources: Sequence[Mapping[str, Any]]) -> WorkerNotes:
    """The first source that has each field wins (content JSON, then tool arguments)."""

    def first(key: str) -> Any:
        return next((s[key] for s in sources if s.get(key) not in (None, "", {})), None)

    return WorkerNotes(
        evaluation=as_text(first("evaluation_previous_goal")),
        memory=as_text(first("memory")),
        next_goal=as_text(first("next_goal")),
        facts=_facts(first("facts")),
        checklist=_checklist(first("checklist")),
        plan=_plan(first("checklist")),
    )


def _strip_notes(call: ToolCall) -> ToolCall:
    if not any(key in call.arguments for key in NOTE_KEYS):
        return call
    args = {k: v for k, v in call.arguments.items() if k not in NOTE_KEYS}
    return ToolCall(call.id, call.name, args)


def _one_text_call(item: Any, index: int) -> ToolCall | None:
    if not isinstance(item, Mapping):
        return None
    name = next((item[k] for k in _NAME_KEYS if isinstance(item.get(k), str)), None)
    if not name:
        return None
    args = next((item[k] for k in _ARG_KEYS if isinstance(item.get(k), Mapping)), None)
    if args is None:  # flat form: {"action": "click", "ref": "3:4"}
        args = {k: v for k, v in item.items() if k not in _NAME_KEYS and k not in NOTE_KEYS}
    return ToolCall(f"text_call_{index}", name.strip(), dict(args))


def text_calls(data: Mapping[str, Any] | None) -> tuple[ToolCall, ...]:
    """Actions written as JSON text instead of tool calls."""
    if data is None:
        return ()
    listed = next((data[k] for k in _LIST_KEYS if isinstance(data.get(k), list)), None)
    items = listed if listed is not None else [data]
    calls = (_one_text_call(item, i) for i, item in enumerate(items, 1))
    return tuple(c for c in calls if c is not None)


def parse_worker_reply(reply: LLMReply) -> WorkerTurn:
    data = parse_json_object(reply.content)
    sources: list[Mapping[str, Any]] = [data] if data else []
    sources += [call.arguments for call in reply.tool_calls]
    notes = notes_from(sources)
    if reply.tool_calls:
        return WorkerTurn(tuple(_strip_notes(c) for c in reply.tool_calls), notes, reply.content)
    calls = text_calls(data)
    return WorkerTurn(calls, notes, reply.content, from_text=bool(calls))


class Worker:
    """One Worker call over the messages the loop's history built."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm

    async def act(
        self, messages: list[Message], tools: Sequence[Mapping[str, Any]]
    ) -> tuple[LLMReply, WorkerTurn]:
        """One call with the tools offered on this step (workers/agent/tools/offer.py)."""
        call = RoleCall(WORKER, messages, tools=tuple(tools), tool_choice="auto")
        reply = await call.send(self.llm)
        return reply, parse_worker_reply(reply)
