"""Test doubles for the agent's protocols: Browser, LLM, EventSink and MemoryStore.

Shipped with the package so unit tests, integration tests and benchmarks share one copy.

FakeBrowser is a tiny site: pages of (role, name, target) elements rendered as snapshot
lines `[v:n] role "name"`; clicking an element with a target navigates there. Versions go
up on every observe, and refs from older versions are refused like the real PageSession.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from workers.agent.ledger import DeadEnd, EpisodicNote, Fact, StepOutcome
from workers.agent.protocols import (
    Action,
    ActionTarget,
    ApprovalDecision,
    ApprovalRequest,
    LLMReply,
    Observation,
    ToolCall,
    ToolResult,
)

Page = list[tuple[str, str, str | None]]  # (role, name, target url or None)


class FakeBrowser:
    def __init__(self, pages: Mapping[str, Page], *, text_extra: str = "") -> None:
        self.pages = dict(pages)
        self.text_extra = text_extra
        self.current = "about:blank"
        self.version = 0
        self.actions: list[Action] = []
        self.screenshots = 0
        self.goto_error: Exception | None = None
        self.fail: dict[str, ToolResult] = {}  # action name -> forced result

    @property
    def url(self) -> str:
        return self.current

    async def goto(self, url: str) -> ToolResult:
        if self.goto_error is not None:
            raise self.goto_error
        if url not in self.pages:
            return ToolResult(success=False, reason="404", error="navigation_failed")
        self.current = url
        return ToolResult(success=True, page_changed=True)

    async def observe(self, mode: str = "compact") -> Observation:
        self.version += 1
        lines = [f'- heading "{self.current}"']
        for i, (role, name, _) in enumerate(self.pages.get(self.current, []), 1):
            lines.append(f'[{self.version}:{i}] {role} "{name}"')
        text = "\n".join(lines) + self.text_extra
        return Observation(self.current, self.current, text, self.version, tokens=len(text) // 4)

    async def execute(self, action: Action) -> ToolResult:
        self.actions.append(action)
        if action.name in self.fail:
            return self.fail[action.name]
        if action.name == "navigate":
            return await self.goto(str(action.args["url"]))
        if action.name == "dom_search" and "password" in str(action.args.get("selector")):
            return self._password_fields()
        if "ref" not in action.args:
            return ToolResult(success=True)
        version, index = (int(x) for x in str(action.args["ref"]).split(":"))
        if version != self.version:
            return ToolResult(success=False, reason="old snapshot", error="stale_ref")
        elements = self.pages.get(self.current, [])
        if not 1 <= index <= len(elements):
            return ToolResult(success=False, reason="no such element", error="bad_ref")
        target = elements[index - 1][2]
        if action.name == "click" and target:
            self.current = target
            return ToolResult(success=True, page_changed=True)
        return ToolResult(success=True)

    def _password_fields(self) -> ToolResult:
        """dom_search for password inputs: elements of role "password" on the page."""
        elements = self.pages.get(self.current, [])
        hits = [{"tag": "input", "text": name} for role, name, _ in elements if role == "password"]
        if not hits:
            return ToolResult(success=False, reason="nothing visible", error="text_not_found")
        return ToolResult(success=True, reason=f"{len(hits)} found", data={"hits": hits})

    async def screenshot(self) -> bytes:
        self.screenshots += 1
        return b"\xff\xd8fake-jpeg\xff\xd9"


Responder = Callable[[Sequence[Mapping[str, Any]]], "LLMReply | Exception"]
_CLAIM = re.compile(r"The Worker called done: (\{.*\})")


def message_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """All text parts of a message list, joined."""
    parts: list[str] = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts.extend(str(p.get("text", "")) for p in content if isinstance(p, Mapping))
    return "\n".join(parts)


def default_planner_verdict(text: str) -> dict[str, Any]:
    """A Planner that trusts the Worker: it accepts a completion claim as stated and
    otherwise lets the Worker go on (two checklist items on its first run)."""
    claim = _CLAIM.search(text)
    if claim is not None:
        stated = json.loads(claim.group(1))
        return {
            "observation": "the Worker claims completion",
            "challenges": "",
            "done": True,
            "success": bool(stated.get("success")),
            "next_steps": [],
            "final_answer": str(stated.get("answer", "")),
            "reasoning": "the claim matches the goal",
        }
    return {
        "observation": "in progress",
        "challenges": "",
        "done": False,
        "next_steps": [],
        "final_answer": "",
        "reasoning": "keep going",
        "checklist": ["Carry out the task", "Report the result"],
    }


def default_planner(messages: Sequence[Mapping[str, Any]]) -> LLMReply:
    verdict = default_planner_verdict(message_text(messages))
    return LLMReply(json.dumps(verdict), (), 50, 20, "fake-planner", 0.01, "stop")


def reply(*calls: tuple[str, Mapping[str, Any]], content: str | None = None) -> LLMReply:
    ids = itertools.count(1)
    tool_calls = tuple(ToolCall(f"c{next(ids)}", name, dict(args)) for name, args in calls)
    return LLMReply(content, tool_calls, 100, 10, "fake-model", 0.01, "tool_calls")


def default_summarizer(messages: Sequence[Mapping[str, Any]]) -> LLMReply:
    """A summarizer that answers with the first line of what it was asked to summarise."""
    last = message_text(messages[-1:]).strip().splitlines()
    return LLMReply((last[-1] if last else "summary")[:200], (), 30, 10, "fake-sum", 0.01, "stop")


PLANNER_SIDE: Mapping[str, Responder] = {"planner": default_planner}
# for runs of the whole brain whose scripts only speak for the Worker
BRAIN_SIDE: Mapping[str, Responder] = {**PLANNER_SIDE, "summarizer": default_summarizer}


class FakeLLM:
    """Answers from a list of replies (or functions of the messages); records every prompt.

    `prompts` and `roles` hold the scripted calls only; `calls` holds every call."""

    def __init__(
        self,
        script: Sequence[LLMReply | Exception | Responder],
        side: Mapping[str, Responder] | None = None,
    ) -> None:
        """Calls of the roles in `side` (default: the planner, PLANNER_SIDE) are answered
        by those responders; all other calls take the next item of the script."""
        self.script = list(script)
        self.side = dict(PLANNER_SIDE if side is None else side)
        self.prompts: list[list[Mapping[str, Any]]] = []
        self.roles: list[str] = []
        # every call as (role, messages, response_format); `prompts`/`roles`: scripted ones
        self.calls: list[tuple[str, list[Mapping[str, Any]], Mapping[str, Any] | None]] = []
        self.offered: list[tuple[str, ...]] = []  # tool names offered, per scripted call
        self.hang = asyncio.Event()

    async def chat(
        self,
        role: str,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | None = None,
        response_format: Mapping[str, Any] | None = None,
    ) -> LLMReply:
        self.calls.append((role, list(messages), response_format))
        if role in self.side:
            answer = self.side[role](messages)
            if isinstance(answer, Exception):
                raise answer
            return answer
        self.prompts.append(list(messages))
        self.roles.append(role)
        self.offered.append(tuple(str(t["function"]["name"]) for t in tools or ()))
        if not self.script:
            await self.hang.wait()  # never set: models a call that does not return
        item = self.script.pop(0)
        if callable(item) and not isinstance(item, LLMReply):
            item = item(messages)
        if isinstance(item, Exception):
            raise item
        return item


@dataclass
class RecordingSink:
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    screenshots: dict[int, bytes] = field(default_factory=dict)
    cancel_after_checks: int | None = None
    checks: int = 0

    async def emit(self, type: str, data: Mapping[str, Any]) -> None:
        self.events.append((str(type), dict(data)))

    async def save_screenshot(self, step: int, jpeg: bytes) -> None:
        self.screenshots[step] = jpeg

    async def cancel_requested(self) -> bool:
        self.checks += 1
        return self.cancel_after_checks is not None and self.checks > self.cancel_after_checks

    def of_type(self, type: str) -> list[dict[str, Any]]:
        return [data for t, data in self.events if t == type]


@dataclass
class InMemoryMemoryStore:
    """MemoryStore kept in dicts; `domain_dead_ends` outlives a task like the real tables."""

    snapshots: list[dict[str, Any]] = field(default_factory=list)
    steps: list[StepOutcome] = field(default_factory=list)
    facts: list[tuple[str, Fact]] = field(default_factory=list)
    episodic: list[EpisodicNote] = field(default_factory=list)
    domain_dead_ends: dict[str, list[DeadEnd]] = field(default_factory=dict)
    learnings: dict[str, dict[str, Any]] = field(default_factory=dict)

    async def save_ledger(self, snapshot: Mapping[str, Any]) -> None:
        self.snapshots.append(dict(snapshot))

    async def append_step(self, outcome: StepOutcome) -> None:
        self.steps.append(outcome)

    async def append_fact(self, fact: Fact, domain: str) -> None:
        self.facts.append((domain, fact))

    async def append_episodic(self, note: EpisodicNote) -> None:
        self.episodic.append(note)

    async def record_dead_end(self, domain: str, dead_end: DeadEnd) -> None:
        self.domain_dead_ends.setdefault(domain.lower(), []).append(dead_end)

    async def load_domain_dead_ends(self, domain: str) -> Sequence[DeadEnd]:
        return list(self.domain_dead_ends.get(domain.lower(), ()))

    async def load_domain_learnings(self, domain: str) -> Mapping[str, Any]:
        return dict(self.learnings.get(domain.lower(), {}))

    async def record_learning(self, domain: str, key: str, value: Any) -> None:
        self.learnings.setdefault(domain.lower(), {})[key] = value

    @property
    def latest(self) -> dict[str, Any]:
        """The last saved snapshot."""
        return self.snapshots[-1] if self.snapshots else {}


@dataclass
class ScriptedGate:
    """ApprovalGate double: answers each request with the next scripted status
    (approved | denied | expired; expired once the script is used up). `on_request` runs
    first, e.g. to play the person who clears a challenge."""

    answers: list[str] = field(default_factory=lambda: ["approved"])
    requests: list[ApprovalRequest] = field(default_factory=list)
    on_request: Callable[[ApprovalRequest], None] | None = None

    async def request(self, request: ApprovalRequest) -> ApprovalDecision:
        self.requests.append(request)
        if self.on_request is not None:
            self.on_request(request)
        status = self.answers.pop(0) if self.answers else "expired"
        return ApprovalDecision(f"approval-{len(self.requests)}", status, "test")


class InspectableBrowser(FakeBrowser):
    """FakeBrowser that can say what an action would touch (TargetInspector) and serves
    challenge pages: `targets` maps an element name to its facts (default: its role and
    name), URLs in `challenged` answer with `bot_block` and show an interstitial to
    detect_captcha until removed from the set."""

    def __init__(self, pages: Mapping[str, Page], **kw: Any) -> None:
        super().__init__(pages, **kw)
        self.targets: dict[str, ActionTarget] = {}
        self.challenged: set[str] = set()

    async def inspect_target(self, action: Action) -> ActionTarget | None:
        ref = action.args.get("ref")
        if ref is None:
            return None
        index = int(str(ref).split(":")[1])
        elements = self.pages.get(self.current, [])
        if not 1 <= index <= len(elements):
            return None
        role, name, _ = elements[index - 1]
        found = self.targets.get(name, ActionTarget(role=role, name=name))
        return ActionTarget(**{**found.__dict__, "page_url": self.current})

    async def goto(self, url: str) -> ToolResult:
        result = await super().goto(url)
        if result.success and url in self.challenged:
            why = "Blocked by an anti-bot challenge page: cloudflare_interstitial."
            return ToolResult(False, why, error="bot_block")
        return result

    async def execute(self, action: Action) -> ToolResult:
        if action.name == "detect_captcha":
            self.actions.append(action)
            kinds = ["cloudflare_interstitial"] if self.current in self.challenged else []
            return ToolResult(success=True, data={"detected": bool(kinds), "kinds": kinds})
        return await super().execute(action)


# -- prompt injection at its worst: a model that obeys the page -------------------------
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
class ObeyingLLM:
    """A Worker that follows any instruction it finds in the page text it is shown
    (navigate to / click / type ... into / reveal the password / answer "..."), each once,
    then does the task with `task(page_text) -> (tool, args)`. Other roles (planner,
    summarizer) are answered by `side`. `obeyed` lists what it tried, in order."""

    task: Callable[[str], tuple[str, Mapping[str, Any]]]
    side: Mapping[str, Responder] = field(default_factory=lambda: dict(BRAIN_SIDE))
    obeyed: list[str] = field(default_factory=list)
    calls: list[tuple[str, list[Mapping[str, Any]]]] = field(default_factory=list)

    async def chat(
        self,
        role: str,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] | None = None,
        tool_choice: str | None = None,
        response_format: Mapping[str, Any] | None = None,
    ) -> LLMReply:
        self.calls.append((role, list(messages)))
        if role in self.side:
            answer = self.side[role](messages)
            if isinstance(answer, Exception):
                raise answer
            return answer
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
