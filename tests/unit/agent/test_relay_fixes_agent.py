"""What misled a real model in the wave-2 relay run (docs/benchmarks.md), agent side:
a checklist written and updated in one verdict, and the Worker's evaluation of a step."""

from __future__ import annotations

from workers.agent.ledger import Ledger, StepOutcome
from workers.agent.protocols import LLMReply
from workers.agent.roles.planner import apply_verdict, parse_verdict
from workers.agent.views import render_step, render_worker, worker_view


def reply(content: str) -> LLMReply:
    return LLMReply(content, (), 10, 5, "m", 0.0, "stop")


def test_checklist_and_its_first_update_in_one_verdict_both_apply() -> None:
    ledger = Ledger(goal="book a flight")
    verdict = parse_verdict(
        reply(
            '{"next_steps": ["set To"], "checklist": ["From set to Anvik, AK",'
            ' "To set to Minot, ND", "Search and book"],'
            ' "checklist_update": {"id": 1, "status": "completed"}}'
        )
    )
    apply_verdict(ledger, verdict)
    assert [(i.id, i.status) for i in ledger.checklist] == [
        (1, "completed"),
        (2, "pending"),
        (3, "pending"),
    ]
    apply_verdict(ledger, parse_verdict(reply('{"checklist": ["other", "list"]}')))
    assert ledger.checklist[0].text == "From set to Anvik, AK"  # written once, not replaced


def test_the_workers_evaluation_is_shown_as_about_the_step_before() -> None:
    ledger = Ledger(goal="open the section")
    ledger.record_step(StepOutcome(1, "http://x/", ("dom_search(query=aliquet) -> failed",)))
    ledger.record_step(
        StepOutcome(
            2,
            "http://x/",
            ("click(ref=2:1) -> ok",),
            evaluation="Failed: dom_search sees only visible text",
        )
    )
    line = render_step(ledger.recent[-1])
    assert "| eval (of step 1): Failed: dom_search sees only visible text" in line
    assert "| eval:" not in render_worker(worker_view(ledger, "http://x/"))
