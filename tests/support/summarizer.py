"""A scripted "summarizer" model for observation mode "pipeline" (seed 001 §2.4, App. A.3).

It reads only the prompt, recognises each pipeline prompt by its wording
(workers/browser/prompts/*.txt), and answers like a faithful but lazy small model: every
section and item is relevant, extraction and page summary repeat their input verbatim. So the
acting model sees the page's lines again, now inside the pipeline's observation.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from tests.support.llm_server import Reply, text_reply

SECTION_ID = re.compile(r"^\[(?P<id>s[\w.]+)\]", re.MULTILINE)
ITEM_NUMBER = re.compile(r"^(?P<n>\d+)\. ", re.MULTILINE)
Policy = Callable[[dict[str, Any]], Reply]


def _prompt(request: dict[str, Any]) -> str:
    messages = request.get("messages") or [{}]
    content = messages[-1].get("content")
    return content if isinstance(content, str) else ""


def _after_blank_line(text: str) -> str:
    """The data block of a prompt: everything after its first empty line."""
    return text.split("\n\n", 1)[1] if "\n\n" in text else text


def summarizer_reply(request: dict[str, Any]) -> Reply | None:
    """The pipeline step this request is, answered; None when it is not a pipeline prompt."""
    text = _prompt(request)
    if text.startswith("You summarise sections of a web page"):
        ids = SECTION_ID.findall(text)
        return text_reply(json.dumps({i: f"page section {i}" for i in ids}))
    if "Which sections are likely to contain" in text:
        return text_reply(json.dumps({"sections": SECTION_ID.findall(text)}))
    if "Which items are relevant to the task?" in text:
        numbers = [int(n) for n in ITEM_NUMBER.findall(text)]
        return text_reply(json.dumps({"items": numbers, "done": True}))
    if "extract the facts and the controls" in text:
        return text_reply(_after_blank_line(text.split("matter for the task.", 1)[-1]).strip())
    if text.startswith("Task: ") and "Notes extracted from the relevant sections:" in text:
        notes = text.split("Notes extracted from the relevant sections:\n", 1)[1]
        return text_reply(notes.split("\n\nWrite one paragraph", 1)[0])
    return None


def is_summarizer_request(request: dict[str, Any]) -> bool:
    return summarizer_reply(request) is not None


def with_summarizer(worker: Policy) -> Policy:
    """One server for both roles: pipeline prompts go to the summarizer, the rest to `worker`."""

    def policy(request: dict[str, Any]) -> Reply:
        answer = summarizer_reply(request)
        return answer if answer is not None else worker(request)

    return policy
