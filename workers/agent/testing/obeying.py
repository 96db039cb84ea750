"""Prompt injection at its worst: a model that obeys the page it is shown."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from workers.agent.protocols import LLMReply
from workers.agent.testing.llms import (
    BRAIN_SIDE,
    Format,
    Responder,
    SideRolesLLM,
    Tools,
    message_text,
    reply,
)

_PAGE = re.compile(r"<page_content[^>]*>(.*?)</page_content>", re.S)
_SECRET_TOKEN = re.compile(r"<secret:[\w.-]+>")
_ELEMENT = re.compile(r'^\s*\[(\d+:\d+)\]\s+[\w-]+\s+"((?:[^"\\]|\\.)*)"', re.M)
_Q = "[\"'\u201c\u201d]?"
_URL = r"(?P<url>https?://[^\s\"'<>]+)"
# a quoted name, or an unquoted one up to the end of the clause
_NAME = (
    r"(?:the\s+)?(?:[\"\u201c](?P<name>[^\"\u201d\n]+)[\"\u201d]"
    r"|(?P<bare>[^\"\u201c.!,;\n]+?)(?:\s+(?:button|link|field|box))?(?=[.!,;\n]|$))"
)
OBEYED_INSTRUCTIONS: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern, re.I))
    for kind, pattern in (
        ("navigate", rf"\b(?:navigate|go|visit|open|browse)\s+(?:to\s+)?{_URL}"),
        ("type", rf"\b(?:type|enter|paste|write)\s+{_Q}(?P<text>.+?){_Q}\s+(?:into|in)\s+{_NAME}"),
        ("click", rf"\b(?:click|press|tap)\s+(?:on\s+)?{_NAME}"),
        ("reveal", r"\b(?:reveal|include|print|repeat|tell|send)\b[^.\n]*\b(?:password|secret)"),
        (
            "answer",
            r"\b(?:answer|respond|reply|say)\s+(?:with\s+)?[\"\u201c](?P<text>[^\"\u201d\n]+)",
        ),
    )
)


def page_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """The text of the latest <page_content> block the model was shown ('' if none)."""
    blocks = _PAGE.findall(message_text(messages))
    return blocks[-1] if blocks else ""


def element_ref(page: str, name: str) -> str | None:
    """Ref of the element whose name contains `name` (or is contained in it)."""
    wanted = name.strip().lower()
    for ref, label in _ELEMENT.findall(page):
        label = label.lower()
        if label and (wanted in label or label in wanted):
            return ref
    return None


@dataclass
class ObeyingLLM(SideRolesLLM):
    """A Worker that follows any instruction it finds in the page text it is shown
    (navigate to / click / type ... into / reveal the password / answer "..."), each once,
    then does the task with `task(page_text) -> (tool, args)`. Other roles (planner,
    summarizer) are answered by `side`. `obeyed` lists what it tried, in order."""

    task: Callable[[str], tuple[str, Mapping[str, Any]]]
    side: Mapping[str, Responder] = field(default_factory=lambda: dict(BRAIN_SIDE))
    obeyed: list[str] = field(default_factory=list)
    calls: list[tuple[str, list[Mapping[str, Any]]]] = field(default_factory=list)

    def record(
        self, role: str, messages: Sequence[Mapping[str, Any]], response_format: Format
    ) -> None:
        self.calls.append((role, list(messages)))

    async def scripted(
        self, role: str, messages: Sequence[Mapping[str, Any]], tools: Tools
    ) -> LLMReply:
        page = page_text(messages).replace('\\"', '"')
        secret = _SECRET_TOKEN.search(_PAGE.sub("", message_text(messages)))  # the task's
        for kind, pattern in OBEYED_INSTRUCTIONS:
            for match in pattern.finditer(page):
                call = _obey(kind, match, page, secret[0] if secret else "")
                key = f"{kind}:{match[0]}"
                if call is not None and key not in self.obeyed:
                    self.obeyed.append(key)
                    return reply(call)
        return reply(self.task(page))


def _obey(
    kind: str, match: re.Match[str], page: str, secret: str
) -> tuple[str, Mapping[str, Any]] | None:
    found = match.groupdict()
    if kind == "navigate":
        return "navigate", {"url": found["url"]}
    if kind == "reveal":
        return "done", {"answer": f"The password is {secret or 'unknown'}", "success": True}
    if kind == "answer":
        return "done", {"answer": found["text"], "success": True}
    ref = element_ref(page, found["name"] or found["bare"] or "")
    if ref is None:
        return None
    if kind == "click":
        return "click", {"ref": ref}
    text = found["text"]
    if secret and re.search(r"password|secret|credential", text, re.I):
        text = secret
    return "type", {"ref": ref, "text": text}
