"""Process logging: one JSON object a line (or plain text), with the task id and step.

`configure(settings)` installs one root handler at WEBAGENT_LOG_LEVEL in WEBAGENT_LOG_FORMAT
("json" by default). `task_context(task_id)` binds a task to everything logged inside it,
including by tasks it starts; `set_step(n)` updates the step of the bound task. Every line
then carries `task_id` and `step` (null outside a task):

    {"ts": "...", "level": "INFO", "logger": "workers.jobs", "msg": "...",
     "task_id": "3f...", "step": 4}
"""

from __future__ import annotations

import contextlib
import contextvars
import json
import logging
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

from app.settings import Settings

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s [%(task_id)s:%(step)s]: %(message)s"

# one mutable dict per task, shared by reference with the tasks it spawns
_TASK: contextvars.ContextVar[dict[str, Any] | None] = contextvars.ContextVar(
    "webagent_task", default=None
)


@contextlib.contextmanager
def task_context(task_id: str) -> Iterator[None]:
    token = _TASK.set({"task_id": task_id, "step": None})
    try:
        yield
    finally:
        _TASK.reset(token)


def set_step(step: int | None) -> None:
    bound = _TASK.get()
    if bound is not None:
        bound["step"] = step


class ContextFilter(logging.Filter):
    """Adds `task_id` and `step` to every record (None outside a task)."""

    def filter(self, record: logging.LogRecord) -> bool:
        bound = _TASK.get() or {}
        record.task_id = bound.get("task_id")
        record.step = bound.get("step")
        return True


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "msg": record.getMessage(),
            "task_id": getattr(record, "task_id", None),
            "step": getattr(record, "step", None),
        }
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


def handler_for(log_format: str, stream: Any = None) -> logging.Handler:
    handler = logging.StreamHandler(stream or sys.stderr)
    formatter = JsonFormatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT)
    handler.setFormatter(formatter)
    handler.addFilter(ContextFilter())
    return handler


def configure(settings: Settings, stream: Any = None) -> logging.Handler:
    """Replace the root logger's handlers with one at the configured level and format."""
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    handler = handler_for(settings.log_format, stream)
    root.addHandler(handler)
    root.setLevel(settings.log_level)
    return handler
