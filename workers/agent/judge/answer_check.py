"""The answer check (issue 10): a successful run's answer against what the run saw.

After a run that ends with `done(success=true)` (and after the output_schema round), the
checkable claims of the answer and of `result.data` (workers/agent/judge/claims.py) are looked up
in the text the run saw (workers/agent/judge/grounding.py gathers it). Claims seen nowhere go
back to the model once, like the output_schema repair round: "your answer states X, which
no page you saw shows; check it or correct it". Its reply replaces the answer (for a task
with an output_schema only when it is still valid JSON for the schema) and is checked again;
a failed feedback call (model error, budget spent) leaves the answer as it was, unverified.
The reply is taken only when it states nothing new that no page showed and keeps every
claim that was seen (issue 27): the round never trades a value for a "closest" string;
a refused reply is kept in `rejected_correction`. The page lines shown with the request
are evidence, not suggestions.

The outcome carries `grounding`: `verdict` is `verified` (every claim seen, or a number
derived from seen numbers), `unverified` (claims still unseen after the round; they are
listed), or `no_claims` (nothing checkable). An unverified answer keeps the task
`succeeded` — the run did its work and the answer may be a legitimate inference — but is
never reported as verified: the API, the viewer and `webagent run` show what was unseen.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from workers.agent import prompts, textcut
from workers.agent.context.history import untrusted_block
from workers.agent.errors import AgentError, TaskCancelled
from workers.agent.judge import structured
from workers.agent.judge.claims import Claim, SeenText, Verdict, claims_of, strings_in
from workers.agent.protocols import LLM, AgentOutcome
from workers.agent.roles.base import RoleCall

log = logging.getLogger(__name__)

CHECK_ROLE = "worker"
MARK = "Not found on any page the run saw:"
NEARBY_LINES = 3  # page lines shown per unseen claim
NEARBY_CHARS = 200
_PREFIX = re.compile(r"^[^\W\d_]+[-_/]?")


def _as_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None


def claims_in(answer: str | None, data: Any) -> list[Claim]:
    """The answer's claims and those inside the structured result, each once (a JSON
    answer is read by its values: its keys are the schema's words, not claims)."""
    value = _as_json(answer or "")
    texts = [*strings_in(value)] if isinstance(value, dict | list) else [answer or ""]
    texts += strings_in(data) if data is not None else ()
    found = {(c.kind, c.key): c for text in texts for c in claims_of(text)}
    return list(found.values())


def report(verdict: Verdict, *, before: str | None = None) -> dict[str, Any]:
    """`result.grounding`: the verdict, how many claims were checked, what was not seen."""
    state = "unverified" if verdict.unseen else "verified" if verdict.checked else "no_claims"
    out: dict[str, Any] = {
        "verdict": state,
        "checked": verdict.checked,
        "unseen": [c.text for c in verdict.unseen],
        "derived": [c.text for c in verdict.derived],
        "corrected": before is not None,
    }
    if verdict.run_together:
        out["run_together"] = [c.text for c in verdict.run_together]
    if before is not None:
        out["answer_before_check"] = before
    return out


def _keeps_to_the_pages(first: Verdict, second: Verdict) -> bool:
    """The revision states no unseen value the answer did not already state, and drops
    none of the values the pages showed."""
    was_unseen = {(c.kind, c.key) for c in first.unseen}
    now_seen = {(c.kind, c.key) for c in (*second.seen, *second.derived)}
    new_unseen = [c for c in second.unseen if (c.kind, c.key) not in was_unseen]
    dropped = [c for c in first.seen if (c.kind, c.key) not in now_seen]
    return not new_unseen and not dropped


def _probe(claim: Claim) -> str:
    """What a near miss shares with the claim: a code's letters, a URL's host, ..."""
    if claim.kind == "code":
        found = _PREFIX.match(claim.key)
        return found.group() if found else claim.key[:3]
    if claim.kind in ("url", "email"):
        return re.split(r"[/@]", claim.key.split("@")[-1])[0]
    if claim.kind == "quote":
        return max(claim.key.split(), key=len)
    return ""


def nearby(claims: list[Claim], seen: SeenText) -> str:
    """Seen page lines that look like each unseen claim (a misread code, say)."""
    lines = seen.text.split("\n")
    picked: list[str] = []
    for claim in claims:
        probe = _probe(claim)
        if len(probe) < 2:
            continue
        hits = [textcut.cut(line.strip(), NEARBY_CHARS) for line in lines if probe in line]
        picked += [h for h in hits[:NEARBY_LINES] if h not in picked]
    return untrusted_block("\n".join(picked)) if picked else "(none)"


def _check_call(instruction: str, answer: str, unseen: list[Claim], seen: SeenText) -> RoleCall:
    listed = "\n".join(f"- {c.text}" for c in unseen)
    messages = prompts.exchange(
        "answer_check_system.md",
        "answer_check_request.md",
        instruction=instruction,
        answer=answer,
        unseen=listed,
        nearby=nearby(unseen, seen),
    )
    return RoleCall(CHECK_ROLE, messages)


def _revised(outcome: AgentOutcome, text: str | None, schema: Mapping[str, Any] | None) -> Any:
    """The outcome with the model's checked answer, or None when the reply is unusable."""
    text = (text or "").strip()
    if not text:
        return None
    if not schema:
        return replace(outcome, answer=text)
    checked = structured.check(text, schema)
    if not checked.ok:
        return None
    return replace(outcome, answer=text, data=checked.value)


async def settle(
    outcome: AgentOutcome,
    seen: SeenText,
    llm: LLM,
    instruction: str,
    schema: Mapping[str, Any] | None = None,
) -> AgentOutcome:
    """The outcome with `grounding` set; one feedback round when claims were not seen.

    `llm` should be metered: the feedback call is a model call of the run like any other.
    """
    if not outcome.success:
        return outcome
    first = seen.check(claims_in(outcome.answer, outcome.data))
    if not first.unseen:
        return replace(outcome, grounding=report(first))
    answer = outcome.answer or ""
    try:
        reply = await _check_call(instruction, answer, first.unseen, seen).send(llm)
    except TaskCancelled:
        raise
    except AgentError as exc:  # the model failed or the budget ran out: still unverified
        log.warning("answer check: no feedback round (%s)", exc)
        return replace(outcome, grounding=report(first))
    revised = _revised(outcome, reply.content, schema)
    if revised is None:
        return replace(outcome, grounding=report(first))
    second = seen.check(claims_in(revised.answer, revised.data))
    if not _keeps_to_the_pages(first, second):
        return replace(outcome, grounding={**report(first), "rejected_correction": revised.answer})
    before = answer if revised.answer != answer else None
    return replace(revised, grounding=report(second, before=before))
