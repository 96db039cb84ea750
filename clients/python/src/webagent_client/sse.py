"""Server-sent events of a task: parsing and the resume bookkeeping both clients share.

`GET /v1/tasks/{id}/events` sends each event as `event:` type, `id:` seq and `data:` the
event as JSON. After a dropped connection the client reconnects with `Last-Event-ID: <last
seq>` and the service replays what came after it, so the caller sees every event once, in
order, until `task.finished`.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field

from webagent_client.models import EventOut

FINISHED = "task.finished"
TERMINAL = frozenset({"succeeded", "failed", "cancelled", "timed_out"})
RECONNECT_DELAY_S = 1.0
MAX_RECONNECTS = 20


@dataclass
class _Message:
    event: str = "message"
    id: str = ""
    data: list[str] = field(default_factory=list)


class SSEParser:
    """Feeds lines, returns the `(event, id, data)` a blank line completes (SSE spec):
    comments (keep-alive pings) and `retry:` are skipped, an empty data buffer sends nothing."""

    def __init__(self) -> None:
        self._message = _Message()

    def feed(self, line: str) -> tuple[str, str, str] | None:
        message = self._message
        if not line:
            self._message = _Message()
            payload = "\n".join(message.data)
            return (message.event, message.id, payload) if payload else None
        if line.startswith(":"):
            return None
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            message.event = value
        elif name == "id":
            message.id = value
        elif name == "data":
            message.data.append(value)
        return None


def parse_sse(lines: Iterator[str]) -> Iterator[tuple[str, str, str]]:
    parser = SSEParser()
    for line in lines:
        if (message := parser.feed(line)) is not None:
            yield message


async def aparse_sse(lines: AsyncIterator[str]) -> AsyncIterator[tuple[str, str, str]]:
    parser = SSEParser()
    async for line in lines:
        if (message := parser.feed(line)) is not None:
            yield message


class Resume:
    """Where a followed stream stands: the last seq seen and the reconnects in a row.

    Only consecutive connects that received nothing count against `max_reconnects`: a stream
    that delivered a keep-alive or an event before it dropped starts the count over."""

    def __init__(self, after: int, max_reconnects: int) -> None:
        self.last = after
        self.attempts = 0
        self.max_reconnects = max_reconnects

    def headers(self) -> dict[str, str]:
        return {"Last-Event-ID": str(self.last)} if self.last else {}

    def alive(self) -> None:
        self.attempts = 0

    def accept(self, data: str) -> EventOut | None:
        """The event, or None when it was already delivered before a reconnect."""
        event = EventOut.model_validate_json(data)
        if event.seq <= self.last:
            return None
        self.last, self.attempts = event.seq, 0
        return event

    def dropped(self) -> bool:
        """Count a failed connect; True while another attempt is allowed."""
        self.attempts += 1
        return self.attempts <= self.max_reconnects
