"""Reading a MiniWoB++ prompt the way a model does: the instruction from the <task> block,
refs by role and accessible name from the snapshot lines, quoted values from the utterance.
Shared by the scripted policies (tests/support/miniwob_policies.py, miniwob_composite.py)."""

from __future__ import annotations

import re
from typing import Any

from tests.support.llm_server import Reply, tool_reply
from tests.support.policies import Element, last_tool_results

_TASK_RE = re.compile(r"<task>\s*(.*?)\s*</task>", re.S)
NODE_LINE = re.compile(
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
        for m in NODE_LINE.finditer(page)
    ]


def find(page: str, roles: tuple[str, ...], name: str | None = None) -> str | None:
    """First ref with one of `roles` and, when given, exactly that accessible name."""
    for el in nodes(page):
        if el.role in roles and (name is None or el.name.strip() == name):
            return el.ref
    return None


def give_up(why: str) -> Reply:
    return tool_reply(("done", {"answer": why, "success": False}))


def quoted(text: str) -> str | None:
    match = re.search(r"\"([^\"]+)\"", text)
    return match.group(1) if match else None


def quoted_all(text: str) -> list[str]:
    return re.findall(r"\"([^\"]+)\"", text)


def all_hits(request: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """The hit lists of every successful dom_search of the previous step, in order."""
    found = []
    for result in last_tool_results(request):
        hits = (result.get("data") or {}).get("hits")
        if result.get("success") and isinstance(hits, list):
            found.append(hits)
    return found


def search_hits(request: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The first successful dom_search hit list of the previous step, if any."""
    found = all_hits(request)
    return found[0] if found else None


def centre(hit: dict[str, Any]) -> tuple[float, float]:
    return hit["x"] + hit["w"] / 2, hit["y"] + hit["h"] / 2


def offered_options(request: dict[str, Any]) -> list[str] | None:
    """The options a get_dropdown_options call of the previous step returned."""
    offered = None
    for result in last_tool_results(request):
        options = (result.get("data") or {}).get("options")
        if result.get("success") and isinstance(options, list):
            offered = options
    return offered


def hit_lists(request: dict[str, Any]) -> list[list[dict[str, Any]] | None]:
    """Per tool result of the previous step: its dom_search hits, [] when nothing matched
    (text_not_found), None for any other result."""
    lists: list[list[dict[str, Any]] | None] = []
    for result in last_tool_results(request):
        found = (result.get("data") or {}).get("hits")
        if result.get("success") and isinstance(found, list):
            lists.append(found)
        else:
            lists.append([] if result.get("error") == "text_not_found" else None)
    return lists
