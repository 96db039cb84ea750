"""Scripted "models" for MiniWoB++ tests: they read ONLY the prompt, like a real model.

A policy sees the chat request the agent sent: it takes the instruction from the <task>
block and the page from the last <page_content> block, finds refs by role and accessible
name in the snapshot text, and answers with tool calls. It never touches the browser.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from tests.support.llm_server import Reply, text_reply, tool_reply
from tests.support.policies import Element, latest_observation

_TASK_RE = re.compile(r"<task>\s*(.*?)\s*</task>", re.S)
_NODE_LINE = re.compile(
    r'\[(?P<ref>\d+:\d+)\]\s+(?P<role>[\w-]+)(?:\s+"(?P<name>(?:[^"\\]|\\.)*)")?'
)


def instruction(request: dict[str, Any]) -> str:
    """The user's task as the prompt states it."""
    for message in request.get("messages", []):
        content = message.get("content")
        match = _TASK_RE.search(content) if isinstance(content, str) else None
        if match:
            return match.group(1)
    return ""


def nodes(page: str) -> list[Element]:
    """Every ref'd line, named or not (`[1:2] textbox` has no accessible name)."""
    return [
        Element(m["ref"], m["role"], (m["name"] or "").replace('\\"', '"'))
        for m in _NODE_LINE.finditer(page)
    ]


def find(page: str, roles: tuple[str, ...], name: str | None = None) -> str | None:
    """First ref with one of `roles` and, when given, exactly that accessible name."""
    for el in nodes(page):
        if el.role in roles and (name is None or el.name.strip() == name):
            return el.ref
    return None


def _give_up(why: str) -> Reply:
    return tool_reply(("done", {"answer": why, "success": False}))


def _quoted(text: str) -> str | None:
    match = re.search(r"\"([^\"]+)\"", text)
    return match.group(1) if match else None


def _click_named(roles: tuple[str, ...]) -> Callable[[str, str], Reply]:
    def solve(task: str, page: str) -> Reply:
        name = _quoted(task)
        ref = find(page, roles, name) if name else None
        return tool_reply(("click", {"ref": ref})) if ref else _give_up(f"no {roles[0]} {name!r}")

    return solve


def _enter_text(task: str, page: str) -> Reply:
    text = _quoted(task)
    box = find(page, ("textbox",))
    submit = find(page, ("button",), "Submit")
    if text is None or box is None or submit is None:
        return _give_up("no text field or Submit button")
    return tool_reply(("type", {"ref": box, "text": text}), ("click", {"ref": submit}))


# Utterance patterns of the smoke tasks (click-button, click-link, enter-text).
SOLVERS: tuple[tuple[re.Pattern[str], Callable[[str, str], Reply]], ...] = (
    (re.compile(r"^Click on the \".+\" button\.$"), _click_named(("button",))),
    # MiniWoB's "links" are <span class="alink">: a snapshot shows them as generic, named.
    (re.compile(r"^Click on the link \".+\"\.$"), _click_named(("link", "generic"))),
    (re.compile(r"^Enter \".+\" into the text field and press Submit\.$"), _enter_text),
)


def miniwob_policy(request: dict[str, Any]) -> Reply:
    """Worker turns get tool calls; any other role gets a neutral text reply."""
    tool_names = {t.get("function", {}).get("name") for t in request.get("tools") or []}
    if "click" not in tool_names:
        return text_reply("{}")
    task, page = instruction(request), latest_observation(request)
    for pattern, solve in SOLVERS:
        if pattern.match(task):
            return solve(task, page)
    return _give_up("this scripted policy only knows the smoke tasks")


def wrong_button_policy(request: dict[str, Any]) -> Reply:
    """Clicks a button whose name is NOT the one asked for (to exercise wrong_answer)."""
    task, page = instruction(request), latest_observation(request)
    wanted = _quoted(task)
    for el in nodes(page):
        if el.role == "button" and el.name.strip() != wanted:
            return tool_reply(("click", {"ref": el.ref}))
    return _give_up("only the right button is on the page")
