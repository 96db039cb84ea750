"""bench/request_tokens.py: o200k counts of whole Worker requests (issue 22)."""

from __future__ import annotations

import json

from bench.request_tokens import RequestCount, count_request, o200k, tool_table, worker_requests


def _request(*, image: bool = False) -> dict:
    page: object = "Click the button [1:2]"
    if image:
        page = [
            {"type": "text", "text": "Click the button [1:2]"},
            {"type": "image_url", "image_url": {"url": "data:image/jpeg;base64," + "A" * 4000}},
        ]
    return {
        "tools": [{"type": "function", "function": {"name": "click", "description": "Click."}}],
        "messages": [
            {"role": "system", "content": "You are a browser agent."},
            {"role": "user", "content": "the task"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "click", "arguments": '{"ref":"1:1"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": '{"success":true}'},
            {"role": "user", "content": page},
        ],
    }


def test_the_whole_request_is_counted_with_tools_and_system_apart() -> None:
    enc = o200k()
    request = _request()
    count = count_request(request, enc)
    tools = len(enc.encode(json.dumps(request["tools"], separators=(",", ":"))))
    assert count.tools == tools
    assert count.system == len(enc.encode("You are a browser agent.")) + 4
    assert count.total == count.tools + count.system + count.messages
    # the replayed tool call's arguments are read by the model, so they count
    assert count.messages > len(enc.encode("the task")) + len(enc.encode('{"ref":"1:1"}'))
    assert count.images == 0 and 0 < count.tool_share < 1


def test_images_are_counted_apart_not_as_base64_text() -> None:
    enc = o200k()
    plain, with_image = count_request(_request(), enc), count_request(_request(image=True), enc)
    assert with_image.images == 1
    assert with_image.total == plain.total  # 4,000 base64 characters add no text tokens


def test_worker_requests_are_the_calls_that_offer_browser_tools() -> None:
    planner = {"messages": [{"role": "user", "content": "x"}], "response_format": {}}
    assert worker_requests([_request(), planner]) == [_request()]


def test_tool_table_counts_each_schema() -> None:
    enc = o200k()
    rows = tool_table(
        [{"type": "function", "function": {"name": n, "description": "d" * k}} for n, k in
         (("a", 1), ("b", 400))],
        enc,
    )  # fmt: skip
    assert [r[0] for r in rows] == ["b", "a"]  # largest first
    assert rows[0][1] > rows[1][1] and isinstance(RequestCount(1, 2, 3, 0).total, int)
