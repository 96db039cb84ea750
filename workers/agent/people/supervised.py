"""A person in the loop, enforced by the execution layer (seed 003 §8.4.1 and §8.4.3): the
Browser the agent drives, wrapped so that

- an action the rules of workers/agent/people/approvals.py call sensitive waits for a person's
  decision (ApprovalGate) before it runs: approved -> it runs; denied -> a failed
  ToolResult `approval_denied`; no answer in time -> `handoff_timeout` (a dead-end of that
  cause once the loop ingests it). The model is told that the action waited for a person,
  how long, and the decision (relay 2026-11-27 finding 6: an approved action read like any
  other); a denial reads as the person's decision, not to be retried. The same request is
  not asked twice in one run.
- nobody is asked (issue 31 item 5) when the user's instruction already asks for that act
  (workers/agent/people/consent.py; the tool result says so), or when the credential typed into a
  password field is literal text the same site showed on a page of this run (not one of the
  user's secrets).
- a challenge or block page (workers/agent/people/challenges.py) is first offered to an operator's
  ChallengeSolver, then handed to a person (kind "challenge", with the screenshot): approved
  -> the page is checked again (reloaded once if still blocked) and the run continues;
  denied or unanswered -> BotBlocked, the task fails with `bot_blocked`.

Nothing about this is visible to the model except tool results, so a prompt-injected model
cannot skip it. A bulk call is checked step by step before any of it runs.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any
from urllib.parse import urlsplit

from workers.agent.errors import BotBlocked
from workers.agent.memory.approval_memory import (
    APPROVALS,
    AskedBefore,
    label_of,
    remembered,
    with_asked,
)
from workers.agent.memory.ledger import DeadEnd, domain_of
from workers.agent.people import challenges
from workers.agent.people.approvals import (
    LOGIN,
    SECRET_TOKEN,
    Sensitivity,
    describe,
    sensitivity,
    signature,
    steps_of,
)
from workers.agent.people.consent import consent
from workers.agent.people.proxy import BrowserProxy
from workers.agent.protocols import (
    Action,
    ActionTarget,
    ApprovalDecision,
    ApprovalGate,
    ApprovalRequest,
    Browser,
    Challenge,
    ChallengeSolver,
    MemoryStore,
    Observation,
    TargetInspector,
    ToolResult,
)
from workers.agent.toolerrors import ToolError

log = logging.getLogger(__name__)
CHALLENGE = "challenge"
SHOWN_PAGES = 20  # page texts per host kept for the shown-credential check


@dataclass(frozen=True)
class Supervision:
    """What a task asked for: approvals before sensitive actions, handoffs on challenges."""

    sensitive_actions: bool = True
    challenges: bool = True
    # a task without allow_scripts has evaluate_script refused by the browser: nobody is asked
    scripts_allowed: bool = True
    solver: ChallengeSolver | None = field(default=None, compare=False)
    instruction: str = ""  # the user's: what it asks for needs nobody's approval


class SupervisedBrowser(BrowserProxy):
    """Browser protocol over another Browser; every other attribute is the inner one's."""

    def __init__(
        self,
        inner: Browser,
        gate: ApprovalGate,
        supervision: Supervision,
        memory: MemoryStore | None = None,
    ) -> None:
        super().__init__(inner)
        self.gate = gate
        self.supervision = supervision
        self.memory = memory  # a refused challenge becomes a per-domain bot_block dead end
        self.refused: dict[str, ApprovalDecision] = {}  # signature -> the denial / expiry
        self.shown: dict[str, list[str]] = {}  # host -> texts of its pages seen in this run

    async def observe(self, mode: str = "compact") -> Observation:
        seen = await self.inner.observe(mode)
        texts = self.shown.setdefault(urlsplit(seen.url).hostname or "", [])
        texts[:] = [*texts[-(SHOWN_PAGES - 1) :], seen.text]
        return seen

    async def goto(self, url: str) -> ToolResult:
        return await self._past_challenges(await self.inner.goto(url))

    async def execute(self, action: Action) -> ToolResult:
        granted: list[str] = []
        if self.supervision.sensitive_actions:
            refusal = await self._approve(action, granted)
            if refusal is not None:
                return refusal
        result = await self._past_challenges(await self.inner.execute(action))
        if not granted:
            return result
        return replace(result, reason=f"{'; '.join(granted)}; then: {result.reason}")

    # -- sensitive actions ----------------------------------------------------------------
    async def _target(self, action: Action) -> ActionTarget | None:
        if not isinstance(self.inner, TargetInspector):
            return None
        return await self.inner.inspect_target(action)

    async def _approve(self, action: Action, granted: list[str]) -> ToolResult | None:
        """None when the action may run (each approval it waited for added to `granted`);
        else the failed result the model gets instead."""
        for step in steps_of(action):
            if step.name == "evaluate_script" and not self.supervision.scripts_allowed:
                continue
            target = await self._target(step)
            found = sensitivity(step, target)
            if found is None or self._shown_credential(step, found):
                continue
            agreed = consent(found, self.supervision.instruction)
            if agreed is not None:
                granted.append(agreed.note())
                continue
            key = signature(step, target)
            if key in self.refused:
                return _refused(found, self.refused[key], None)
            started = time.monotonic()
            decision = await self._ask(found, target)
            waited = time.monotonic() - started
            await self._remember(step, target, decision)
            if not decision.approved:
                self.refused[key] = decision
                return _refused(found, decision, waited)
            granted.append(_approved(found, decision, waited))
        return None

    async def _remember(
        self, action: Action, target: ActionTarget | None, decision: ApprovalDecision
    ) -> None:
        """The host's memory of what needed a person's approval (issue 34): a later run sees
        it on the element's line before it acts (workers/agent/memory/approval_memory.py)."""
        domain = domain_of(self.inner.url)
        if self.memory is None or not domain:
            return
        ref = str(action.args.get("ref") or action.args.get("submit_ref") or "")
        texts = self.shown.get(urlsplit(self.inner.url).hostname or "", [])
        label = label_of(texts[-1], ref) if texts and ref else ""
        label = label or (describe(target) if target is not None else "")
        if not label:
            return
        asked = AskedBefore(action.name, label, decision.status)
        rows = remembered(await self.memory.load_domain_learnings(domain))
        await self.memory.record_learning(domain, APPROVALS, with_asked(rows, asked))

    def _shown_credential(self, action: Action, found: Sensitivity) -> bool:
        """Literal text typed into a password field that this site itself showed (a demo
        login printed on the page): not the user's credential, nothing to guard."""
        text = str(action.args.get("text", "")).strip()
        if found.kind != LOGIN or not text or SECRET_TOKEN.search(text):
            return False
        host = urlsplit(self.inner.url).hostname or ""
        return any(text in page for page in self.shown.get(host, ()))

    async def _ask(self, found: Sensitivity, target: ActionTarget | None) -> ApprovalDecision:
        details: Mapping[str, Any] = {"rule": found.rule}
        if target is not None and target.form_action:
            details = {**details, "form_action": target.form_action}
        request = ApprovalRequest(
            kind=found.kind,
            reason=found.reason,
            url=self.inner.url,
            element=found.element,
            screenshot=await self._screenshot(),
            details=details,
        )
        return await self.gate.request(request)

    async def _screenshot(self) -> bytes | None:
        try:
            return await self.inner.screenshot()
        except Exception as exc:  # noqa: BLE001 - a page without a screenshot is still decided on
            log.warning("approval screenshot failed: %r", exc)
            return None

    # -- challenges -----------------------------------------------------------------------
    async def _past_challenges(self, result: ToolResult) -> ToolResult:
        if not self.supervision.challenges:
            return result
        challenge = await challenges.on_page(self.inner, result)
        if challenge is None:
            return result
        if await self._solved(challenge):
            return _cleared(challenge, "an operator's challenge solver")
        decision = await self.gate.request(
            ApprovalRequest(
                kind=CHALLENGE,
                reason=f"{challenge.reason}: a person must clear it, then approve",
                url=challenge.url,
                element=", ".join(challenge.kinds),
                screenshot=await self._screenshot(),
                details={"kinds": list(challenge.kinds)},
            )
        )
        if not decision.approved:
            why = (
                f"{challenge.url} is behind a challenge ({', '.join(challenge.kinds)}); "
                f"the handoff was {decision.status}"
            )
            await self._dead_end(challenge, why)
            raise BotBlocked(why)
        if await self._clear_after_handoff(challenge):
            return _cleared(challenge, "a person")
        return ToolResult(
            success=False,
            error=ToolError.bot_block,
            reason=f"{challenge.url} still shows the challenge after a person's approval",
            page_changed=True,
        )

    async def _dead_end(self, challenge: Challenge, why: str) -> None:
        """Later runs on the domain learn that it is challenge-walled (seed 000 §5.2)."""
        if self.memory is None:
            return
        dead_end = DeadEnd(why, challenge.url, "bot_block", signature="challenge")
        await self.memory.record_dead_end(dead_end.domain, dead_end)

    async def _solved(self, challenge: Challenge) -> bool:
        solver = self.supervision.solver
        if solver is None:
            return False
        try:
            claimed = await solver.solve(challenge, self.inner)
        except Exception as exc:  # noqa: BLE001 - a failing solver service means: ask a person
            log.warning("challenge solver failed on %s: %r", challenge.url, exc)
            return False
        return claimed and not await challenges.still_there(self.inner, challenge)

    async def _clear_after_handoff(self, challenge: Challenge) -> bool:
        """The page is clear now, or after one reload of the challenged URL."""
        if not await challenges.still_there(self.inner, challenge):
            return True
        reloaded = await self.inner.goto(challenge.url)
        return reloaded.error != ToolError.bot_block and not await challenges.still_there(
            self.inner, challenge
        )


def _waited(found: Sensitivity, waited: float) -> str:
    return f"waited {waited:.0f} s for a person's approval ({found.rule} rule: {found.reason})"


def _approved(found: Sensitivity, decision: ApprovalDecision, waited: float) -> str:
    return f"{_waited(found, waited)}; a person approved it ({decision.by or 'api'}), so it ran"


def _refused(found: Sensitivity, decision: ApprovalDecision, waited: float | None) -> ToolResult:
    """`waited` None: the same request was refused earlier in the run, not asked again."""
    asked = _waited(found, waited) if waited is not None else (
        f"not asked again: a person's approval of {found.reason} was already refused"
        " earlier in this run"
    )  # fmt: skip
    if decision.status == "expired":
        error = ToolError.handoff_timeout
        how = "nobody answered in time; it stays undone: do not retry it"
    else:
        error = ToolError.approval_denied
        how = (
            f"a person denied it ({decision.by or 'api'}): that is their decision, not a page"
            " failure; do not retry this action or another way to the same effect"
        )
    return ToolResult(
        success=False,
        error=error,
        reason=f"not done: {asked}; {how}",
        tried=(found.element,),
        data={"approval_id": decision.approval_id},
    )


def _cleared(challenge: Challenge, by: str) -> ToolResult:
    return ToolResult(
        success=True,
        reason=f"{by} cleared the challenge at {challenge.url}; read the page again",
        page_changed=True,
    )


def supervise(
    browser: Browser,
    gate: ApprovalGate | None,
    supervision: Supervision | None,
    memory: MemoryStore | None = None,
) -> Browser:
    """The browser itself when nothing is supervised, else the supervised wrapper."""
    if gate is None or supervision is None:
        return browser
    if not (supervision.sensitive_actions or supervision.challenges):
        return browser
    return SupervisedBrowser(browser, gate, supervision, memory)
