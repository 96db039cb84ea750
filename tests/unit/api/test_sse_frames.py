"""Each event is encoded into its SSE message once, however many streams send it."""

from __future__ import annotations

import json
import uuid
from datetime import UTC, datetime

from app.api.events import frame
from app.contracts import Event


def _event(seq: int) -> Event:
    return Event(
        id=uuid.uuid4().hex,
        task_id="t1",
        seq=seq,
        ts=datetime.now(UTC),
        type="step.started",
        data={"step": seq, "text": "two\nlines"},
    )


def test_frame_is_one_sse_message_shared_by_every_stream() -> None:
    event = _event(7)
    first = frame(event)
    assert frame(event) is first  # the second stream reuses the bytes
    lines = first.decode().split("\r\n")
    assert lines[:2] == ["id: 7", "event: step.started"]
    assert lines[-2:] == ["", ""]  # a blank line ends the message
    body = json.loads(lines[2].removeprefix("data: "))
    assert body["seq"] == 7 and body["data"]["text"] == "two\nlines"


def test_frames_of_different_events_differ() -> None:
    a, b = _event(1), _event(2)
    assert frame(a) != frame(b)
