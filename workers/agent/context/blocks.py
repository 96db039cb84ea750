"""The tagged blocks inside prompt messages that the eviction phases recognise (seed 000 §5.3).

Messages are OpenAI chat dicts. Their content is a string or a list of parts
(`{"type": "text", ...}`, `{"type": "image_url", ...}`). Whoever builds messages writes
page state, element lists and the Ledger through these constructors, so
`workers/agent/context/eviction.py` can find them again:

- `[SESSION_STATE url="…" title="…"] … [/SESSION_STATE]`: the page a turn was taken on
  (Phase 3 keeps the current (url, title) as the "you are stuck" signal).
- `[ELEMENTS …] … [/ELEMENTS]`: one listing of interactive elements (Phase 6).
- `<ledger> … </ledger>`: the rendered Ledger in the system message (the final refresh).
- image parts are screenshots (Phase 1); the text parts beside them are their captions.

Bodies come from web pages, so a tag inside a body (these blocks' and the untrusted
`<page_content>` delimiter) is defused with a zero-width space: page text can never end a
block early or forge another.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

Message = dict[str, Any]

STATE_CLOSE = "[/SESSION_STATE]"
ELEMENTS_CLOSE = "[/ELEMENTS]"
LEDGER_OPEN, LEDGER_CLOSE = "<ledger>", "</ledger>"
IMAGE_PART_TYPES = frozenset({"image_url", "image", "input_image"})

_QUOTED = r'"(?:[^"\\]|\\.)*"'
STATE_RE = re.compile(
    rf"\[SESSION_STATE url=(?P<url>{_QUOTED}) title=(?P<title>{_QUOTED})\]\n.*?\[/SESSION_STATE\]",
    re.DOTALL,
)
ELEMENTS_RE = re.compile(r"\[ELEMENTS(?: [^\]\n]*)?\]\n.*?\[/ELEMENTS\]", re.DOTALL)
LEDGER_RE = re.compile(r"<ledger>\n.*?\n</ledger>", re.DOTALL)
_FORGEABLE = re.compile(
    r"(\[\s*/?\s*(?:SESSION_STATE|ELEMENTS)|<\s*/?\s*(?:ledger|page_content))", re.IGNORECASE
)


def defuse(text: str) -> str:
    """Body text that cannot open or close a block (a zero-width space after the bracket)."""
    return _FORGEABLE.sub(lambda m: m.group(0)[0] + "\u200b" + m.group(0)[1:], text)


def state_block(url: str, title: str, body: str = "") -> str:
    """The page state of one turn; `body` is whatever else the turn shows about the page."""
    head = f"[SESSION_STATE url={json.dumps(url)} title={json.dumps(' '.join(title.split()))}]"
    return f"{head}\n{defuse(body)}\n{STATE_CLOSE}"


def elements_block(body: str, label: str = "") -> str:
    """One element listing, e.g. `elements_block(rows, "v=3")`."""
    head = f"[ELEMENTS {label}]" if label else "[ELEMENTS]"
    return f"{head}\n{defuse(body)}\n{ELEMENTS_CLOSE}"


# Page-derived text inside the Ledger (element names of dead ends, what earlier runs
# learned about a site) is fenced as untrusted (issue 21): views wrap it with `fenced`,
# whose sentinels no page text can carry (they are stripped from every body), and
# `ledger_block` turns each sentinel pair into the declared untrusted delimiters.
_FENCE_OPEN, _FENCE_CLOSE = "\x02", "\x03"
_FENCED = re.compile("\x02([^\x02\x03]*)\x03")
UNTRUSTED_OPEN, UNTRUSTED_CLOSE = '<page_content untrusted="true">', "</page_content>"


def _unsentinel(text: str) -> str:
    return text.replace(_FENCE_OPEN, "").replace(_FENCE_CLOSE, "")


def fenced(text: str) -> str:
    """Page-derived text for a Ledger view: shown inside the untrusted fence."""
    return f"{_FENCE_OPEN}{_unsentinel(text)}{_FENCE_CLOSE}"


def untrusted_block(text: str) -> str:
    """Page-derived text on its own (outside a Ledger block), inside the untrusted fence."""
    return f"{UNTRUSTED_OPEN}\n{_unsentinel(defuse(text))}\n{UNTRUSTED_CLOSE}"


def ledger_block(rendered: str) -> str:
    body = defuse(rendered)  # page text cannot open or close a fence of its own
    body = _FENCED.sub(lambda m: f"{UNTRUSTED_OPEN}\n{m[1]}\n{UNTRUSTED_CLOSE}", body)
    return f"{LEDGER_OPEN}\n{_unsentinel(body)}\n{LEDGER_CLOSE}"


@dataclass(frozen=True)
class PageKey:
    """(url, title) of a session-state block."""

    url: str
    title: str


def state_keys(text: str) -> Iterator[tuple[re.Match[str], PageKey]]:
    for match in STATE_RE.finditer(text):
        yield match, PageKey(json.loads(match["url"]), json.loads(match["title"]))


def text_of(message: Mapping[str, Any]) -> str:
    """All text of a message (string content, or its text parts joined by newlines)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if p.get("type") == "text")
    return ""


def is_image_part(part: Any) -> bool:
    return isinstance(part, Mapping) and part.get("type") in IMAGE_PART_TYPES
