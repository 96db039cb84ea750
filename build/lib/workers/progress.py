"""Live terminal view of one task for `webagent run`: a step log, a status line, the result."""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from rich.console import Console, Group
from rich.live import Live
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from app.contracts import EventType
from workers.client import StreamedEvent

STATUS_STYLE = {"succeeded": "green", "failed": "red", "timed_out": "yellow", "cancelled": "yellow"}


def describe(event: StreamedEvent) -> Text | None:
    """One log line per interesting event; None for events shown only in the status line."""
    data = event.data
    step = data.get("step")
    prefix = f"[{step:>3}] " if isinstance(step, int) else "      "
    if event.type == EventType.task_started:
        return Text(f"      started on {data.get('worker_id', '?')}", style="dim")
    if event.type == EventType.observation:
        return Text(f"{prefix}page {data.get('title') or ''} <{data.get('url', '')}>", style="cyan")
    if event.type == EventType.action_executed:
        ok = bool(data.get("success"))
        args = ", ".join(f"{k}={v!r}" for k, v in (data.get("args") or {}).items())
        mark = "✓" if ok else "✗"
        line = Text(f"{prefix}{mark} {data.get('action')}({args})", style="green" if ok else "red")
        if not ok and data.get("reason"):
            line.append(f"  {data['reason']}", style="dim")
        return line
    if event.type in (EventType.plan_updated, EventType.route_decided, EventType.fact_recorded):
        return Text(f"{prefix}{event.type}: {_short(data)}", style="magenta")
    return None


def _short(data: dict[str, Any], limit: int = 100) -> str:
    text = ", ".join(f"{k}={v}" for k, v in data.items() if k != "step")
    return text if len(text) <= limit else text[: limit - 1] + "…"


class ProgressView:
    """Tracks steps, tokens and the page while events arrive; renders with rich.Live."""

    def __init__(self, task_id: str, max_steps: int | None, console: Console | None = None):
        self.console = console or Console()
        self.task_id = task_id
        self.max_steps = max_steps
        self.started = time.monotonic()
        self.step = 0
        self.url = ""
        self.tokens = 0
        self.finished: dict[str, Any] | None = None

    def follow(self, events: Iterable[StreamedEvent]) -> dict[str, Any] | None:
        """Consume the stream, printing log lines; returns the task.finished data."""
        with Live(
            self._status(), console=self.console, refresh_per_second=4, transient=True
        ) as live:
            for event in events:
                self._track(event)
                line = describe(event)
                if line is not None:
                    live.console.print(line)
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
        if event.type == EventType.task_finished:
            self.finished = data

    def _status(self) -> Text:
        limit = f"/{self.max_steps}" if self.max_steps else ""
        elapsed = time.monotonic() - self.started
        return Text(
            f"task {self.task_id}  step {self.step}{limit}  tokens {self.tokens}  "
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
        body: list[Any] = [Text(str(result.get("answer") or "(no answer)"))]
        if task.get("error"):
            body.append(Text(f"error: {task['error']} {task.get('error_detail') or ''}", "red"))
        body.append(table)
        style = STATUS_STYLE.get(status, "white")
        self.console.print(Panel(Group(*body), title=f"{status}", border_style=style))
