"""Scripted "models" for the LLM server: they read ONLY the prompt, like a real model would.

The observation is the text between <page_content ...> and </page_content> in the last user
message, in the workers/browser/observe/compact.py format: interactive elements are lines like
`[3:12] button "Sort by price"` (ref, role, JSON-quoted accessible name, then optional
`value="..."` and states, all ignored here), headings are `## Title`, other lines are text.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from tests.support.llm_server import Reply, text_reply, tool_reply

ELEMENT_LINE = re.compile(r'\[(?P<ref>\d+:\d+)\]\s+(?P<role>[\w-]+)\s+"(?P<name>(?:[^"\\]|\\.)*)"')
PAGE_BLOCK = re.compile(  # the URL and Title header lines open the block; text is the page
    r"<page_content[^>]*>\n?(?:URL: [^\n]*\n)?(?:Title: [^\n]*\n)?(?P<text>.*?)\n?</page_content>",
    re.DOTALL,
)
URL_LINE = re.compile(r"^URL: (?P<url>\S+)", re.MULTILINE)
HEADING = re.compile(r"^(?P<level>#{1,6}) (?P<text>.+)$", re.MULTILINE)
PRICE = re.compile(r"\$\d+(?:\.\d{2})?")


@dataclass(frozen=True)
class Element:
    ref: str
    role: str
    name: str


def elements(observation: str) -> list[Element]:
    """Every `[v:n] role "name"` element of a snapshot text, in page order."""
    return [
        Element(m["ref"], m["role"], json.loads(f'"{m["name"]}"'))
        for m in ELEMENT_LINE.finditer(observation)
    ]


def find_ref(observation: str, role: str, name: str, *, exact: bool = False) -> str:
    """The ref of the first element with this role whose name matches (substring by default)."""
    for el in elements(observation):
        if el.role != role:
            continue
        if el.name == name if exact else name.lower() in el.name.lower():
            return el.ref
    raise LookupError(f'no {role} named "{name}" in the observation')


def has_element(observation: str, role: str, name: str) -> bool:
    try:
        find_ref(observation, role, name)
    except LookupError:
        return False
    return True


def _last_user_text(request: dict[str, Any]) -> str:
    for message in reversed(request.get("messages", [])):
        content = message.get("content")
        if isinstance(content, list):  # text + Set-of-Mark screenshot parts
            content = "\n".join(p.get("text", "") for p in content if p.get("type") == "text")
        is_user = message.get("role") == "user" and isinstance(content, str)
        if is_user and PAGE_BLOCK.search(content):
            return str(content)
    return ""


def latest_observation(request: dict[str, Any]) -> str:
    """The page snapshot text of the newest observation in the prompt ('' when none)."""
    match = PAGE_BLOCK.search(_last_user_text(request))
    return match["text"] if match else ""


def latest_url(request: dict[str, Any]) -> str:
    match = URL_LINE.search(_last_user_text(request))
    return match["url"] if match else ""


def last_tool_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The ToolResult payloads of the previous step, as the model received them."""
    results: list[dict[str, Any]] = []
    for message in request.get("messages", []):
        if message.get("role") == "assistant":
            results = []
        elif message.get("role") == "tool":
            results.append(json.loads(message["content"]))
    return results


StepFn = Callable[[str], Reply]


class ScriptedPolicy:
    """Multi-step script: call i answers with steps[i](latest observation); then it says done."""

    def __init__(self, steps: Sequence[StepFn]) -> None:
        self.steps = list(steps)
        self.calls = 0
        self._lock = threading.Lock()

    def __call__(self, request: dict[str, Any]) -> Reply:
        with self._lock:
            index, self.calls = self.calls, self.calls + 1
        if index >= len(self.steps):
            return tool_reply(("done", {"answer": "script exhausted", "success": False}))
        return self.steps[index](latest_observation(request))


def click(role: str, name: str) -> StepFn:
    """Script step: click the element with this role and name."""
    return lambda obs: tool_reply(("click", {"ref": find_ref(obs, role, name)}))


def done(answer: str, success: bool = True) -> StepFn:
    return lambda obs: tool_reply(("done", {"answer": answer, "success": success}))


def cheapest_product_policy(request: dict[str, Any]) -> Reply:
    """Shop task like a model would do it: sort by price, open the first product, read it."""
    obs = latest_observation(request)
    if has_element(obs, "button", "Add to cart"):
        heading = HEADING.search(obs)
        price = PRICE.search(obs)
        if heading and price:
            answer = f"{heading['text']} at {price.group(0)}"
            return tool_reply(("done", {"answer": answer, "success": True}))
        return tool_reply(("done", {"answer": "price not found", "success": False}))
    if has_element(obs, "button", "Sort by price"):
        if "Sorted by price" not in obs:
            return tool_reply(("click", {"ref": find_ref(obs, "button", "Sort by price")}))
        return tool_reply(("click", {"ref": find_ref(obs, "link", "View ")}))
    if has_element(obs, "link", "Outdoor shop"):
        return tool_reply(("click", {"ref": find_ref(obs, "link", "Outdoor shop")}))
    return text_reply("I cannot find the shop.")


def form_policy(values: dict[str, str], topic: str) -> Callable[[dict[str, Any]], Reply]:
    """Fill the contact form in one batch (seed 003 §5.3 bulk actions), submit, read the result."""

    def policy(request: dict[str, Any]) -> Reply:
        obs = latest_observation(request)
        if "Message received" in obs:
            ref = re.search(r"Reference number:?\s*(\d+)", obs)
            answer = f"reference {ref.group(1)}" if ref else "submitted"
            return tool_reply(("done", {"answer": answer, "success": bool(ref)}))
        calls: list[tuple[str, dict[str, Any]]] = [
            ("type", {"ref": find_ref(obs, "textbox", label), "text": text})
            for label, text in values.items()
        ]
        select = find_ref(obs, "combobox", "Topic")
        calls.append(("select_option", {"ref": select, "values": [topic]}))
        calls.append(("click", {"ref": find_ref(obs, "button", "Send message")}))
        return tool_reply(*calls)

    return policy


def always(reply: Reply) -> Callable[[dict[str, Any]], Reply]:
    """The same reply to every request (loops that never finish, error paths)."""
    return lambda request: reply
