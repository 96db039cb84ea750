"""What misled a real model in the wave-2 relay run (docs/benchmarks.md), agent side:
a checklist written and updated in one verdict, the Worker's evaluation of a step, the
reflection prompt without the tool's reason."""

from __future__ import annotations

from app.logredact import REGISTRY
from workers.agent.context.eviction import cause_of
from workers.agent.context.memory import AdaptiveMemory
from workers.agent.context.views import render_step, render_worker, worker_view
from workers.agent.memory.ledger import Ledger, StepOutcome
from workers.agent.protocols import LLMReply
from workers.agent.roles.planner import apply_verdict, parse_verdict
from workers.agent.testing import FakeLLM
from workers.agent.toolerrors import ToolError


class _Owner:
    """Something a secret registry can hold weakly (a task's vault)."""


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


async def test_the_reflection_prompt_carries_the_tools_reason_masked_and_capped() -> None:
    llm = FakeLLM(
        [LLMReply("The date field reformats to ISO; that is fine.", (), 5, 5, "m", 0.0, "stop")]
    )
    ledger = Ledger(goal="enter the date")
    memory = AdaptiveMemory(llm, ledger)
    owner = _Owner()
    REGISTRY.register(owner, ["hunter2-secret"])
    try:
        reason = "typed into 1:1 but the field now holds '2010-05-20' hunter2-secret " + "x" * 900
        await memory.add(
            StepOutcome(
                2,
                "http://x/",
                ("type(ref=1:1,text=05/20/2010) -> failed value_mismatch",),
                success=False,
                error="value_mismatch",
                reason=reason,
            )
        )
    finally:
        REGISTRY.forget(owner)
    prompt = str(llm.prompts[-1][-1]["content"])
    assert "Error: value_mismatch" in prompt
    assert "The tool said: typed into 1:1 but the field now holds '2010-05-20' ***" in prompt
    assert "hunter2-secret" not in prompt and "x" * 400 not in prompt


def test_a_wait_that_ran_out_is_not_a_network_dead_end() -> None:
    assert cause_of(ToolError.condition_not_met) != "network"
    assert cause_of(ToolError.timeout) == "network"  # a page that did not respond still is
