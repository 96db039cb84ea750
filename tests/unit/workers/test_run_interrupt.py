"""Ctrl-C while `webagent run --server` follows a task asks the server to cancel it."""

from __future__ import annotations

import httpx
import pytest
import typer

from workers.cli.client import TaskClient
from workers.cli.commands.service import cancel_on_interrupt


def test_interrupt_cancels_the_task_and_exits_130() -> None:
    seen: list[str] = []

    def server(request: httpx.Request) -> httpx.Response:
        seen.append(f"{request.method} {request.url.path}")
        return httpx.Response(409, json={"detail": "task is already succeeded"})

    client = TaskClient("http://api.test", transport=httpx.MockTransport(server))
    with pytest.raises(typer.Exit) as stopped, cancel_on_interrupt(client, "t1"):
        raise KeyboardInterrupt
    assert stopped.value.exit_code == 130
    assert seen == ["POST /v1/tasks/t1/cancel"]  # a refusal is reported, not raised


def test_no_interrupt_no_cancel() -> None:
    def server(request: httpx.Request) -> httpx.Response:
        raise AssertionError("nothing should be sent")

    client = TaskClient("http://api.test", transport=httpx.MockTransport(server))
    with cancel_on_interrupt(client, "t1"):
        pass
