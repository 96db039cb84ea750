"""LLM doubles: a scripted model that records every prompt, and the default answers of the
roles a script does not speak for (a Planner that trusts the Worker, a summarizer)."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from workers.agent.protocols import LLMReply, ToolCall

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


Tools = Sequence[Mapping[str, Any]] | None
Format = Mapping[str, Any] | None


class SideRolesLLM(ABC):
    """An LLM double's chat: every call is recorded, the roles in `side` are answered by their
    responders, every other call by the double's `scripted`."""

    side: Mapping[str, Responder]

    async def chat(
        self,
        role: str,
        messages: Sequence[Mapping[str, Any]],
        tools: Tools = None,
        tool_choice: str | None = None,
        response_format: Format = None,
    ) -> LLMReply:
        self.record(role, messages, response_format)
        if role in self.side:
            answer = self.side[role](messages)
            if isinstance(answer, Exception):
                raise answer
            return answer
        return await self.scripted(role, messages, tools)

    def record(
        self, role: str, messages: Sequence[Mapping[str, Any]], response_format: Format
    ) -> None:
        """Note the call (every role); a double that keeps no record leaves this as it is."""
        return None

    @abstractmethod
    async def scripted(
        self, role: str, messages: Sequence[Mapping[str, Any]], tools: Tools
    ) -> LLMReply:
        """The double's own answer to a call no side role took."""


class FakeLLM(SideRolesLLM):
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

    def record(
        self, role: str, messages: Sequence[Mapping[str, Any]], response_format: Format
    ) -> None:
        self.calls.append((role, list(messages), response_format))

    async def scripted(
        self, role: str, messages: Sequence[Mapping[str, Any]], tools: Tools
    ) -> LLMReply:
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
