"""Structured logs: JSON lines with the task id and step, level and format from settings."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Iterator

import pytest

from app.logging_config import configure, set_step, task_context
from app.settings import Settings


@pytest.fixture
def restore_root() -> Iterator[None]:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for h in list(root.handlers):
        root.removeHandler(h)
    for h in handlers:
        root.addHandler(h)
    root.setLevel(level)


def lines(stream: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in stream.getvalue().splitlines()]


async def test_json_lines_carry_task_and_step_also_from_spawned_tasks(restore_root: None) -> None:
    stream = io.StringIO()
    configure(Settings(log_format="json", log_level="INFO"), stream)
    log = logging.getLogger("webagent.test")
    log.info("outside")

    async def background() -> None:
        await asyncio.sleep(0)
        log.info("from a spawned task")

    with task_context("t-1"):
        log.info("claimed")
        set_step(3)
        await asyncio.create_task(background())
        log.debug("hidden at INFO")
    set_step(9)  # no task bound: ignored
    entries = lines(stream)
    assert [(e["msg"], e["task_id"], e["step"]) for e in entries] == [
        ("outside", None, None),
        ("claimed", "t-1", None),
        ("from a spawned task", "t-1", 3),
    ]
    assert entries[0]["level"] == "INFO" and entries[0]["logger"] == "webagent.test"


def test_text_format_and_level(restore_root: None) -> None:
    stream = io.StringIO()
    configure(Settings(log_format="text", log_level="WARNING"), stream)
    with task_context("t-2"):
        logging.getLogger("x").info("quiet")
        logging.getLogger("x").warning("loud")
    assert stream.getvalue().count("\n") == 1 and "[t-2:None]: loud" in stream.getvalue()
