"""SSE parsing for `webagent run`: messages, multi-line data, pings and ids."""

from __future__ import annotations

from workers.cli.client import parse_sse


def test_parses_messages_and_skips_pings() -> None:
    lines = [
        ": ping",
        "",
        "event: step.started",
        "id: 4",
        'data: {"seq": 4}',
        "",
        "retry: 1000",
        "data: first",
        "data: second",
        "",
        "event: trailing-without-blank-line",
        "data: x",
    ]
    assert list(parse_sse(iter(lines))) == [
        ("step.started", "4", '{"seq": 4}'),
        ("message", "", "first\nsecond"),
    ]


def test_field_without_space_and_empty_data() -> None:
    lines = ["event:a", "id:1", "data:", "", "event:b", "data:v", ""]
    assert list(parse_sse(iter(lines))) == [("b", "", "v")]
