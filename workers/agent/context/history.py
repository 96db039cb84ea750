"""Message building for the Worker: cache-friendly order, Ledger-fed state, time awareness.

Seed 003 §7.2: static system prompt (tool schemas travel beside it), session context, then
what changes more often, the current page LAST. `LedgerHistory` is the brain's Worker prompt:
the Ledger's Worker view (seed 000 §5.5 eq. 16) replaces a growing transcript, the previous
turn stays verbatim, and the page message carries the clock line of seed 003 §7.1 (time in
the task's zone, elapsed, left, typical step). `CompressedHistory` is the Worker-only loop's
(seed 003 §6.1/§6.3: older steps one line each); `observation_message` takes an optional
JPEG and then returns OpenAI content parts.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta, tzinfo
from typing import Any, Protocol
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from workers.agent import prompts, textcut
from workers.agent.clock import TaskClock
from workers.agent.context.blocks import ledger_block
from workers.agent.context.vision_channel import (
    ChannelConfig,
    VisionChannel,
    image_part,
    system_addendum,
)
from workers.agent.errors import recovery_signal
from workers.agent.memory.ledger import Ledger
from workers.agent.protocols import Action, AgentTask, Observation, ToolCall, ToolResult
from workers.agent.tools import PARSE_ERROR_KEY, RAW_ARGUMENTS_KEY, redacted_args

Message = dict[str, Any]
OPEN_TAG, CLOSE_TAG = "<page_content", "</page_content"
_TAG_LIKE = re.compile(r"<(\s*/?\s*page_content)", re.IGNORECASE)
LINE_ARG_CHARS = 40
NOTE_CHARS = 160


@dataclass(frozen=True)
class ExecutedCall:
    """One tool call of a step: what the model sent, what it parsed to, what happened."""

    call: ToolCall
    action: Action | None  # None when the call did not validate
    result: ToolResult
    repeated: bool = False  # the identical action already failed earlier in this run


@dataclass(frozen=True)
class StepRecord:
    step: int
    url: str
    content: str | None
    calls: tuple[ExecutedCall, ...]

    @property
    def nudged(self) -> bool:
        """The model answered without a tool call, so the next prompt carries a nudge."""
        return not self.calls


class History(Protocol):
    """How past steps are shown to the model: the seam the memory/eviction work plugs into."""

    def record(self, record: StepRecord, seen: Observation) -> None: ...

    def messages(self, observation: Observation, step: int) -> list[Message]: ...


def sanitize_page_text(text: str) -> str:
    """Page text must not be able to close the untrusted block and speak as the user
    (in any spelling a model would read as the tag: `</PAGE_CONTENT>`, `< /page_content>`)."""
    return _TAG_LIKE.sub("<\u200b\\1", text)


def untrusted_block(text: str) -> str:
    """Page text shown anywhere in the prompt goes inside the delimiters the system prompt
    declares untrusted, tool results (a stale-ref snapshot, snapshot(start, end)) included."""
    return f'{OPEN_TAG} untrusted="true">\n{sanitize_page_text(text)}\n{CLOSE_TAG}>'


# ToolResult.data fields the tools fill with their own words, never page text: shown as is
# (a URL or file name can carry page-chosen text, so those stay wrapped).
OWN_DATA_FIELDS = frozenset({"tier", "count", "version", "stalling"})


TIER = "tier"  # ToolResult.data: the transport tier that acted (a click's cdp/playwright/js)


def transport_attempts(tried: tuple[str, ...]) -> tuple[str, ...]:
    """The tiers a click cascade tried: the one-word entries ending `tried` (a workflow's
    own steps before them are phrases: "click trigger 1:3")."""
    count = 0
    for entry in reversed(tried):
        if entry.split() != [entry]:
            break
        count += 1
    return tried[len(tried) - count :]


def without_transport(result: ToolResult) -> ToolResult:
    """The model-facing result without transport noise: a success's tier (`data.tier` and
    the one-word tier attempts ending `tried`, after any steps of a workflow) is the
    events' and metrics' business, shown only when a fallback happened (a tier failed)."""
    tier = result.data.get(TIER)
    if not result.success or not isinstance(tier, str) or tier not in result.tried:
        return result
    attempts = len(transport_attempts(result.tried))
    if attempts > 1:
        return result
    data = {k: v for k, v in result.data.items() if k != TIER}
    return replace(result, tried=result.tried[: len(result.tried) - attempts], data=data)


def result_payload(executed: ExecutedCall) -> str:
    """ToolResult as compact JSON (seed 000 App. A) plus the seed 002 recovery signal."""
    result = without_transport(executed.result)
    payload: dict[str, Any] = {"success": result.success}
    for key in ("reason", "error", "tried", "alternatives", "page_changed"):
        value = getattr(result, key)
        if isinstance(value, tuple):
            value = [sanitize_page_text(str(v)) for v in value]
        elif isinstance(value, str):
            value = sanitize_page_text(value)  # reasons quote element names from the page
        if value:
            payload[key] = value
    if result.data:
        payload["data"] = {
            k: untrusted_block(v) if isinstance(v, str) and k not in OWN_DATA_FIELDS else v
            for k, v in result.data.items()
        }
    if not result.success:
        hint = recovery_signal("repeated_failure" if executed.repeated else result.error)
        if hint:
            payload["hint"] = hint
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False, default=str)


def _call_arguments(executed: ExecutedCall) -> str:
    """The call as the model made it, except secret text, which is replayed as `***`."""
    call, action = executed.call, executed.action
    if action is not None and redacted_args(action) != action.args:
        return json.dumps(dict(redacted_args(action)), ensure_ascii=False, default=str)
    if PARSE_ERROR_KEY in call.arguments:
        return str(call.arguments.get(RAW_ARGUMENTS_KEY, ""))
    return json.dumps(dict(call.arguments), ensure_ascii=False, default=str)


def assistant_message(record: StepRecord, *, with_content: bool = True) -> Message:
    """The model's own turn, replayed so the tool messages that follow are well-formed.
    `with_content=False`: its text (the step's notes) is shown elsewhere, by the Ledger."""
    # content may be null beside tool calls; a bare empty string is refused by some servers
    text = record.content if with_content or not record.calls else None
    content = text or (None if record.calls else "(no reply)")
    message: Message = {"role": "assistant", "content": content}
    if record.calls:
        message["tool_calls"] = [
            {
                "id": ex.call.id,
                "type": "function",
                "function": {"name": ex.call.name, "arguments": _call_arguments(ex)},
            }
            for ex in record.calls
        ]
    return message


def tool_messages(record: StepRecord) -> list[Message]:
    return [
        {"role": "tool", "tool_call_id": ex.call.id, "content": result_payload(ex)}
        for ex in record.calls
    ]


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return textcut.clip(text, LINE_ARG_CHARS)


def _short_call(name: str, args: Mapping[str, Any]) -> str:
    """`type(ref=1:3,text=Ada)`; a bulk call as its actions: `bulk[click(ref=1:2); ...]`."""
    if name == "bulk":
        steps = args.get("actions", ())
        return "bulk[" + "; ".join(_short_call(s["tool"], s["args"]) for s in steps) + "]"
    return f"{name}(" + ",".join(f"{k}={_short(v)}" for k, v in args.items()) + ")"


def call_line(executed: ExecutedCall) -> str:
    """`click(ref=3:4) -> ok, page changed`: one executed call on one line."""
    if executed.action is not None:
        shown = _short_call(executed.action.name, redacted_args(executed.action))
    else:
        shown = f"{executed.call.name}()"
    result = executed.result
    if result.success:
        outcome = "ok, page changed" if result.page_changed else "ok"
    else:
        outcome = f"failed {result.error or ''}".strip()
    return f"{shown} -> {outcome}"


def step_line(record: StepRecord) -> str:
    """One line per past step (seed 003 §6.3 compressed log); the URL is the page the step
    was taken on (`from`), not where it led."""
    actions = "; ".join(call_line(ex) for ex in record.calls) or "(no tool call)"
    line = f"step {record.step} from {record.url}: {actions}"
    note = (record.content or "").strip()
    if note:
        line += f" | note: {textcut.cut(note, NOTE_CHARS)}"
    return line


def observation_message(
    observation: Observation,
    step: int,
    max_steps: int,
    notes: str = "",
    *,
    clock: str = "",
    image_jpeg: bytes | None = None,
    lead: Sequence[str] = (),
) -> Message:
    """The current page as the last user message; with `image_jpeg`, OpenAI content parts
    (the text, then the screenshot as a base64 `image_url` part). `lead`: notes said before
    the page (what a person did on it since the model last looked)."""
    text = prompts.render(
        "observation.md",
        lead="".join(f"{sanitize_page_text(note)}\n" for note in lead),
        step=step,
        max_steps=max_steps,
        clock=f" {clock}" if clock else "",
        version=observation.version,
        url=sanitize_page_text(observation.url),
        title=sanitize_page_text(" ".join(observation.title.split())),  # the page sets it
        text=sanitize_page_text(observation.text),
        notes=notes,
    )
    if image_jpeg is None:
        return {"role": "user", "content": text}
    return {"role": "user", "content": [{"type": "text", "text": text}, image_part(image_jpeg)]}


def observation_notes(last: StepRecord | None, step: int, max_steps: int) -> str:
    """Signals attached to the page: the no-tool-call nudge and a closing-budget warning."""
    notes = []
    if last is not None and last.nudged:
        notes.append(prompts.load("nudge.md").strip())
    left = max_steps - step
    if left <= 2:
        notes.append(f"Only {left} step(s) left after this one: call done soon.")
    return "\n".join(notes)


def preamble(task: AgentTask, system_prompt: str = "worker_system.md") -> list[Message]:
    """The stable prefix: identical on every call of a run, so providers can cache it."""
    task_text = prompts.render(
        "task.md",
        instruction=task.instruction,
        start_url=task.start_url or "(none)",
        max_steps=task.max_steps,
    )
    return [
        {"role": "system", "content": prompts.load(system_prompt).strip() + system_addendum(task)},
        {"role": "user", "content": task_text},
    ]


class CompressedHistory:
    """Seed 003 §6: latest page in full, previous step verbatim, older steps one line each."""

    def __init__(self, task: AgentTask) -> None:
        self._task = task
        self._preamble = preamble(task)
        self._vision = VisionChannel(ChannelConfig.of(task))
        self._records: list[StepRecord] = []
        self.lead: list[str] = []  # one-off notes said first in the next request (a person)

    def record(self, record: StepRecord, seen: Observation) -> None:
        self._records.append(record)

    def messages(self, observation: Observation, step: int) -> list[Message]:
        messages = list(self._preamble)
        older, last = self._records[:-1], (self._records[-1] if self._records else None)
        if older:
            lines = "\n".join(step_line(r) for r in older)
            messages.append({"role": "user", "content": prompts.render("history.md", lines=lines)})
        if last is not None:
            messages.append(assistant_message(last))
            messages.extend(tool_messages(last))
        notes = observation_notes(last, step, self._task.max_steps)
        lead, self.lead = self.lead, []
        current = observation_message(observation, step, self._task.max_steps, notes, lead=lead)
        current["content"] = self._vision.content(current["content"], observation, step)
        return self._vision.finish([*messages, current])


# --- the Worker's prompt fed by the Ledger (seed 000 §5.5 eq. 16) -------------------------


@dataclass(frozen=True)
class RunClock:
    """Time awareness (seed 003 §7.1): wall clock in the task's zone, elapsed, budget left.

    `started` and `deadline` are time.monotonic() values; `started_at` the wall-clock start.
    With `task_clock` the time left is its deadline's, later by a person's takeovers.
    """

    started: float
    deadline: float
    started_at: datetime
    zone: tzinfo
    task_clock: TaskClock | None = field(default=None, compare=False)

    @classmethod
    def start(
        cls, deadline: float, zone_name: str = "UTC", task_clock: TaskClock | None = None
    ) -> RunClock:
        zone = _zone(zone_name)
        return cls(time.monotonic(), deadline, datetime.now(zone), zone, task_clock)

    def line(self, steps_done: int) -> str:
        """The date only once it differs from the start's (the session message has that)."""
        now = time.monotonic()
        deadline = self.deadline if self.task_clock is None else self.task_clock.deadline
        elapsed, left = now - self.started, max(0.0, deadline - now)
        wall = self.started_at + timedelta(seconds=elapsed)
        same_day = wall.date() == self.started_at.date()
        shown = wall.strftime("%H:%M:%S %Z" if same_day else "%Y-%m-%d %H:%M:%S %Z")
        per_step = f", ~{elapsed / steps_done:.0f} s a step" if steps_done else ""
        return f"Now {shown}; {elapsed:.0f} s elapsed, {left:.0f} s left{per_step}."


def _zone(name: str) -> tzinfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def session_message(task: AgentTask, clock: RunClock) -> Message:
    """Session context (seed 003 §7.2 item 2): the task, budget and time zone; static per run."""
    text = prompts.render(
        "session.md",
        instruction=task.instruction,
        start=f"Start page: {task.start_url}\n" if task.start_url else "",  # else already open
        max_steps=task.max_steps,
        time_zone=str(clock.zone),
        started=clock.started_at.strftime("%Y-%m-%d %H:%M %Z"),
    )
    return {"role": "user", "content": text}


class LedgerHistory:
    """The Worker's prompt in seed 003 §7.2 order, nothing growing with the step count:

    static system prompt (tool schemas travel beside it), session context, the Ledger's
    Worker view (a `<ledger>` system block the eviction pass refreshes), the previous turn
    verbatim (its tool results carry reasons, alternatives and hints), and the current page
    LAST with the clock line. Older steps live in the Ledger, not in a transcript.
    """

    def __init__(
        self,
        task: AgentTask,
        ledger: Ledger,
        clock: RunClock,
        render: Callable[[Ledger, str, int], str],
    ) -> None:
        self._task, self._ledger, self._clock, self._render = task, ledger, clock, render
        session = session_message(task, clock)
        self.session_text: str = session["content"]
        self._head = [
            {
                "role": "system",
                "content": prompts.load("worker_brain.md").strip() + system_addendum(task),
            },
            session,
        ]
        self._vision = VisionChannel(ChannelConfig.of(task))
        self._last: StepRecord | None = None
        self.current_url = task.start_url or ""
        self.notes: list[str] = []  # one-off notes for the next observation (Planner feedback)
        self.lead: list[str] = []  # one-off notes said first in the next request (a person)

    def record(self, record: StepRecord, seen: Observation) -> None:
        self._last = record

    def render(self, ledger: Ledger, url: str) -> str:
        """The Ledger's Worker view; the step replayed after it is not listed twice."""
        return self._render(ledger, url, self._replayed_step())

    def _replayed_step(self) -> int:
        return self._last.step if self._last is not None and self._last.calls else 0

    def ledger_message(self, url: str) -> Message:
        return {"role": "system", "content": ledger_block(self.render(self._ledger, url))}

    def messages(
        self, observation: Observation, step: int, image_jpeg: bytes | None = None
    ) -> list[Message]:
        self.current_url = observation.url
        messages = [*self._head, self.ledger_message(observation.url)]
        if self._last is not None and self._last.calls:  # its notes are in the Ledger block
            messages.append(assistant_message(self._last, with_content=False))
            messages.extend(tool_messages(self._last))
        notes = [observation_notes(self._last, step, self._task.max_steps), *self.notes]
        first = self._last is None and not self._ledger.recent  # no replayed step either
        if first and not self._ledger.checklist:  # seed 004 §3.2, from step 1
            notes.append(prompts.load("checklist_ask.md").strip())
        self.notes = []
        lead, self.lead = self.lead, []
        current = observation_message(
            observation,
            step,
            self._task.max_steps,
            "\n".join(n for n in notes if n),
            clock=self._clock.line(step - 1),
            image_jpeg=image_jpeg,
            lead=lead,
        )
        current["content"] = self._vision.content(current["content"], observation, step)
        return self._vision.finish([*messages, current])
