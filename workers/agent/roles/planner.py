"""The Planner: the tactical layer (seed 000 §4.1, Algorithm 1 lines 10-14).

It reads the Planner view of the Ledger (the whole Ledger and the checklist, seed 000 eq. 17)
and the current page, and answers the paper's JSON object {observation, challenges, done,
next_steps, final_answer, reasoning} through `response_format` (a JSON schema), parsed
tolerantly for models that ignore it. It owns `plan`, `subgoal` and the checklist of seed 004
§3.2: on its first run it writes 2-6 atomic checklist items, later it may update one item.

It is the only place a task is declared done. A Worker's `done` arrives as a completion
claim; the Planner then runs seed 001 App. A.4's verification pass against the goal and the
checklist, at most once per run (`PlannerVerdict.verified` tells the loop it happened).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

from workers.agent import prompts, textcut
from workers.agent.context.blocks import ledger_block
from workers.agent.context.history import sanitize_page_text, untrusted_block
from workers.agent.context.views import planner_view, render_planner
from workers.agent.context.vision_channel import image_part
from workers.agent.memory.ledger import CHECKLIST_STATUSES, Ledger
from workers.agent.protocols import LLM, LLMReply, Observation
from workers.agent.roles.base import (
    Message,
    RoleCall,
    as_bool,
    as_list,
    as_text,
    json_schema_format,
    parse_json_object,
)

PLANNER = "planner"
PAGE_CHARS = 6000  # the Planner reads a bounded excerpt of the page

_STR = {"type": "string"}
PLANNER_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "observation": _STR,
        "challenges": _STR,
        "done": {"type": "boolean"},
        "success": {"type": "boolean"},
        "next_steps": {"type": "array", "items": _STR},
        "final_answer": _STR,
        "reasoning": _STR,
        "checklist": {"type": "array", "items": _STR},
        "checklist_update": {
            "type": "object",
            "properties": {
                "id": {"type": "integer"},
                "status": {"type": "string", "enum": list(CHECKLIST_STATUSES)},
            },
        },
    },
    "required": ["observation", "challenges", "done", "next_steps", "final_answer", "reasoning"],
}
RESPONSE_FORMAT = json_schema_format("planner_verdict", PLANNER_SCHEMA)


@dataclass(frozen=True)
class CompletionClaim:
    """The Worker's `done(answer, success)`, turned into a request for verification."""

    answer: str
    success: bool
    step: int
    data: Any = None  # the result typed by the task's output_schema (tools/typed_done.py)


@dataclass(frozen=True)
class PlannerVerdict:
    observation: str = ""
    challenges: str = ""
    done: bool = False
    success: bool = True
    next_steps: tuple[str, ...] = ()
    final_answer: str = ""
    reasoning: str = ""
    checklist: tuple[str, ...] = ()
    checklist_update: tuple[int, str] | None = None
    parsed: bool = True  # False: the reply was not JSON; the verdict is the safe default

    def event(self, step: int, trigger: str) -> dict[str, Any]:
        return {
            "step": step,
            "trigger": trigger,
            "done": self.done,
            "next_steps": list(self.next_steps),
            "challenges": self.challenges,
            "parsed": self.parsed,
        }


def parse_verdict(reply: LLMReply) -> PlannerVerdict:
    """Tolerant parse: JSON via the 4-level fallback, fields coerced, defaults otherwise."""
    data = parse_json_object(reply.content)
    if data is None:
        return PlannerVerdict(parsed=False, reasoning=textcut.cut(as_text(reply.content), 500))
    update = data.get("checklist_update")
    checklist_update = None
    if isinstance(update, dict) and update.get("status") in CHECKLIST_STATUSES:
        try:
            checklist_update = (int(update["id"]), str(update["status"]))
        except (KeyError, TypeError, ValueError):
            checklist_update = None
    return PlannerVerdict(
        observation=as_text(data.get("observation")),
        challenges=as_text(data.get("challenges")),
        done=as_bool(data.get("done")),
        success=as_bool(data.get("success", True)),
        next_steps=tuple(as_list(data.get("next_steps"))),
        final_answer=as_text(data.get("final_answer")),
        reasoning=as_text(data.get("reasoning")),
        checklist=tuple(as_list(data.get("checklist"))),
        checklist_update=checklist_update,
    )


def planner_messages(
    ledger: Ledger,
    session: str,
    observation: Observation | None,
    claim: CompletionClaim | None,
    evidence: str = "",
) -> list[Message]:
    """The Planner's request; a completion claim comes with what it rests on: the quoted
    read-tool results (`evidence`) and, when the Worker reads images, the latest one."""
    page = "(no page yet)"
    if observation is not None:
        text = textcut.cut(observation.text, PAGE_CHARS)
        page = f"URL: {observation.url}\nTitle: {observation.title}\n{text}"
        page = sanitize_page_text(page)  # page text cannot close its untrusted fence
    claim_text = ""
    if claim is not None:
        claim_text = prompts.render(
            "planner_claim.md",
            answer=json.dumps(claim.answer, ensure_ascii=False),
            success=str(claim.success).lower(),
            data=(
                ""
                if claim.data is None
                else ', "data": ' + json.dumps(claim.data, ensure_ascii=False)
            ),
        )
        if evidence:
            quoted = untrusted_block(evidence)
            claim_text = prompts.render("planner_evidence.md", evidence=quoted) + claim_text
    request = prompts.render("planner_request.md", page=page, claim=claim_text)
    image = observation.image if claim is not None and observation is not None else None
    content: Any = (
        request
        if image is None
        else [
            {"type": "text", "text": request},
            image_part(image),
        ]
    )
    return [
        {"role": "system", "content": prompts.load("planner_system.md").strip()},
        {"role": "user", "content": session},
        {"role": "system", "content": ledger_block(render_planner_view(ledger, observation))},
        {"role": "user", "content": content},
    ]


def render_planner_view(ledger: Ledger, observation: Observation | None = None) -> str:
    """The Planner's view of the Ledger (seed 000 eq. 17 plus the checklist); dead ends of
    earlier runs only where they apply to the observed page. The goal is the task text of
    the session message beside it, not written twice."""
    if observation is None:
        return render_planner(planner_view(ledger), include_goal=False)
    view = planner_view(ledger, observation.url, observation.text)
    return render_planner(view, include_goal=False)


Prepare = Callable[[list[Message]], Awaitable[list[Message]]]


class Planner:
    """One Planner call: build the view, ask the model, parse, apply to the Ledger."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm

    async def review(
        self,
        ledger: Ledger,
        session: str,
        observation: Observation | None,
        claim: CompletionClaim | None = None,
        *,
        checklist_update: bool = True,
        prepare: Prepare | None = None,
        evidence: str = "",
        step: int = 0,
    ) -> PlannerVerdict:
        """`checklist_update=False`: this step's one checklist update is already spent.
        `prepare` runs on the messages right before the call (the eviction pass); `step`:
        the run step the plan is set at (the views show its age)."""
        messages = planner_messages(ledger, session, observation, claim, evidence)
        if prepare is not None:
            messages = await prepare(messages)
        call = RoleCall(PLANNER, messages, response_format=RESPONSE_FORMAT)
        verdict = parse_verdict(await call.send(self.llm))
        if not checklist_update:
            verdict = replace(verdict, checklist_update=None)
        apply_verdict(ledger, verdict, step)
        return verdict


def apply_verdict(ledger: Ledger, verdict: PlannerVerdict, step: int = 0) -> None:
    """The Planner's slots: plan and subgoal, the checklist (created once, one update).
    A verdict that writes the checklist and updates an item of it in the same reply gets
    both, in that order (the update names an item of the new list)."""
    if verdict.next_steps:
        ledger.set_plan(verdict.next_steps, verdict.next_steps[0], step)
    if not ledger.checklist:
        ledger.set_checklist(verdict.checklist)
    if verdict.checklist_update is not None:
        ledger.update_checklist_item(*verdict.checklist_update)
