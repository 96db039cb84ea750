"""Live terminal view of one task for `webagent run`: a step log, a status line, the result.

Per step the log shows the model's intent in one capped line (the Worker's `next_goal`,
else the first line of its text or reasoning, from `llm.call`), each action with only the
arguments it set (defaults of the tool's argument model are left out), and the Planner's
checklist from `plan.updated`. The status line adds the cost when WEBAGENT_LLM_PRICES
prices the models (same table and prefix rule as the budget, workers/adapters/budget.py).
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from pydantic import ValidationError
from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from app.contracts import EventType
from workers.adapters.budget import PER_TOKENS, Prices, price_of
from workers.agent import textcut
from workers.agent.roles.base import parse_json_object
from workers.agent.tools import TOOLS
from workers.cli.client import StreamedEvent

STATUS_STYLE = {"succeeded": "green", "failed": "red", "timed_out": "yellow", "cancelled": "yellow"}
THOUGHT_ROLES = frozenset({"worker", "orchestrator"})  # roles whose text is the agent's intent
THOUGHT_CHARS = 120
ARG_CHARS = 40
CHECK_MARKS = {"completed": "☑", "failed": "☒", "in_progress": "▸", "pending": "☐"}


def describe(event: StreamedEvent) -> Text | None:
    """One log line per interesting event; None for events shown only in the status line."""
    data = event.data
    step = data.get("step")
    prefix = f"[{step:>3}] " if isinstance(step, int) else "      "
    if event.type == EventType.task_started:
        return Text(f"      started on {data.get('worker_id', '?')}", style="dim")
    if event.type == EventType.observation:
        return Text(f"{prefix}page {data.get('title') or ''} <{data.get('url', '')}>", style="cyan")
    if event.type == EventType.llm_call:
        thought = thought_of(data)
        return Text(f"{prefix}» {thought}", style="italic") if thought else None
    if event.type == EventType.action_executed:
        return _action_line(prefix, data)
    if event.type == EventType.plan_updated and isinstance(data.get("checklist"), list):
        return _plan_lines(prefix, data)
    if event.type in (EventType.plan_updated, EventType.route_decided, EventType.fact_recorded):
        return Text(f"{prefix}{event.type}: {_short(data)}", style="magenta")
    return None


def thought_of(data: Mapping[str, Any]) -> str | None:
    """The model's intent in one line: next_goal from its notes, else its first text line."""
    if data.get("role") not in THOUGHT_ROLES:
        return None
    content = data.get("content") if isinstance(data.get("content"), str) else None
    notes = parse_json_object(content) if content else None
    if notes and isinstance(notes.get("next_goal"), str) and notes["next_goal"].strip():
        return _cap(notes["next_goal"], THOUGHT_CHARS)
    for text in (None if notes else content, data.get("reasoning")):
        if isinstance(text, str) and text.strip():
            return _cap(text.strip().splitlines()[0], THOUGHT_CHARS)
    return None


def shown_args(action: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments the model set: None and the tool's defaults are left out."""
    spec = TOOLS.get(action)
    fields = spec.args.model_fields if spec else {}
    return {
        key: value
        for key, value in args.items()
        if value is not None and not _is_default(fields.get(key), value)
    }


def _is_default(field: Any, value: Any) -> bool:
    if field is None or field.is_required():
        return False
    try:
        return bool(field.get_default(call_default_factory=True) == value)
    except (TypeError, ValueError, ValidationError):
        return False


def _action_line(prefix: str, data: Mapping[str, Any]) -> Text:
    ok = bool(data.get("success"))
    action = str(data.get("action"))
    args = shown_args(action, data.get("args") or {})
    listed = ", ".join(f"{k}={_cap(repr(v), ARG_CHARS)}" for k, v in args.items())
    mark = "✓" if ok else "✗"
    line = Text(f"{prefix}{mark} {action}({listed})", style="green" if ok else "red")
    if not ok and data.get("reason"):
        line.append(f"  {data['reason']}", style="dim")
    return line


def _plan_lines(prefix: str, data: Mapping[str, Any]) -> Text:
    head = "plan" + (f": {data['subgoal']}" if data.get("subgoal") else "")
    if data.get("done"):
        head += " (planner: done)"
    text = Text(f"{prefix}{_cap(head, THOUGHT_CHARS)}", style="magenta")
    for item in data["checklist"]:
        if isinstance(item, Mapping):
            mark = CHECK_MARKS.get(str(item.get("status")), "☐")
            text.append(f"\n        {mark} {_cap(str(item.get('text', '')), THOUGHT_CHARS)}")
    return text


def _cap(text: str, limit: int) -> str:
    return textcut.clip(text, limit)


def _short(data: dict[str, Any], limit: int = 100) -> str:
    return _cap(", ".join(f"{k}={v}" for k, v in data.items() if k != "step"), limit)


def configured_prices() -> Prices:
    """WEBAGENT_LLM_PRICES of this shell; none when the settings do not load."""
    from app.settings import get_settings

    try:
        return dict(get_settings().llm_prices)
    except ValidationError:
        return {}


def grounding_line(grounding: dict[str, Any]) -> Text:
    """The answer check in one line: verified, or what no page the run saw showed."""
    verdict = grounding.get("verdict")
    if verdict == "unverified":
        unseen = ", ".join(str(x) for x in grounding.get("unseen") or [])
        line = Text(f"answer NOT verified: no page the run saw shows {unseen}", "bold yellow")
    elif verdict == "verified":
        derived = grounding.get("derived") or []
        more = f" (computed: {', '.join(map(str, derived))})" if derived else ""
        line = Text(f"answer verified: {grounding.get('checked')} value(s) seen{more}", "green")
    else:
        line = Text("answer: nothing checkable against the pages", "dim")
    if grounding.get("corrected"):
        line.append(
            f"; corrected after the check, first answer: {grounding.get('answer_before_check')}"
        )
    return line


class ProgressView:
    """Tracks steps, tokens and the page while events arrive; renders with rich.Live."""

    def __init__(
        self,
        task_id: str,
        max_steps: int | None,
        console: Console | None = None,
        prices: Prices | None = None,
    ):
        self.console = console or Console()
        self.prices = configured_prices() if prices is None else prices
        self.cost_usd: float | None = None  # None until a priced call
        self.task_id = task_id
        self.max_steps = max_steps
        self.started = time.monotonic()
        self.step = 0
        self.url = ""
        self.tokens = 0
        self.finished: dict[str, Any] | None = None

    def follow(
        self,
        events: Iterable[StreamedEvent],
        on_approval: Callable[[StreamedEvent], None] | None = None,
    ) -> dict[str, Any] | None:
        """Consume the stream, printing log lines; returns the task.finished data. An
        approval request goes to `on_approval` with the live status line stopped (it may
        ask the person at the terminal)."""
        with Live(
            self._status(), console=self.console, refresh_per_second=4, transient=True
        ) as live:
            for event in events:
                self._track(event)
                line = describe(event)
                if line is not None:
                    live.console.print(line)
                if on_approval is not None and event.type == EventType.approval_requested:
                    live.stop()
                    on_approval(event)
                    live.start()
                live.update(self._status())
        return self.finished

    def _track(self, event: StreamedEvent) -> None:
        data = event.data
        if isinstance(data.get("step"), int):
            self.step = max(self.step, data["step"])
        if event.type == EventType.observation:
            self.url = str(data.get("url", ""))
        if event.type == EventType.llm_call:
            self.tokens += int(data.get("input_tokens", 0)) + int(data.get("output_tokens", 0))
            self._add_cost(data)
        if event.type == EventType.task_finished:
            self.finished = data

    def _add_cost(self, data: Mapping[str, Any]) -> None:
        given = data.get("cost_usd")
        if isinstance(given, int | float):
            cost = float(given)
        else:
            price = price_of(self.prices, str(data.get("model") or ""))
            if price is None:
                return
            tokens_in = int(data.get("input_tokens") or 0)
            cost = tokens_in * price[0] + int(data.get("output_tokens") or 0) * price[1]
            cost /= PER_TOKENS
        self.cost_usd = (self.cost_usd or 0.0) + cost

    def _cost(self) -> str:
        return "" if self.cost_usd is None else f"  ${self.cost_usd:.4f}"

    def _status(self) -> Text:
        limit = f"/{self.max_steps}" if self.max_steps else ""
        elapsed = time.monotonic() - self.started
        return Text(
            f"task {self.task_id}  step {self.step}{limit}  tokens {self.tokens}{self._cost()}  "
            f"{elapsed:5.1f}s  {self.url}",
            style="bold",
        )

    def summary(self, task: dict[str, Any]) -> None:
        """Final panel: status, answer and usage (from the task resource)."""
        status = str(task.get("status"))
        result = task.get("result") or {}
        usage = task.get("usage") or {}
        table = Table.grid(padding=(0, 2))
        for key in ("steps", "llm_calls", "input_tokens", "output_tokens"):
            table.add_row(key, str(usage.get(key, 0)))
        if self.cost_usd is not None:
            table.add_row("cost_usd", f"{self.cost_usd:.4f}")
        body: list[Any] = [Text(str(result.get("answer") or "(no answer)"))]
        if result.get("data") is not None:  # typed result (output_schema)
            body.append(Text("data: " + json.dumps(result["data"], ensure_ascii=False, indent=2)))
        if result.get("grounding"):
            body.append(grounding_line(result["grounding"]))
        if task.get("error"):
            body.append(Text(f"error: {task['error']} {task.get('error_detail') or ''}", "red"))
        body.append(table)
        style = STATUS_STYLE.get(status, "white")
        self.console.print(Panel(Group(*body), title=f"{status}", border_style=style))
