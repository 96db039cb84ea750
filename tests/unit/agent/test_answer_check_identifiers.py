"""The answer check's blind spots (issue 27 item 4).

Measured before: codes without digits (`QuietHarbourEasy`, `LANTERN_KEEPER_HARD`,
`EASY_GATE_CODE`) gave verdict `no_claims` and were never checked; a code followed by
run-together text (`Password: HARBOURKEYEASY20250,00,…`) was "not found", and the feedback
round's hint led the model to another string, which replaced the answer.
"""

from __future__ import annotations

import pytest

from workers.agent.judge import answer_check
from workers.agent.judge.claims import SeenText, claims_of
from workers.agent.protocols import AgentOutcome
from workers.agent.testing import FakeLLM, reply

PAGE = (
    "Welcome back. Your passphrase is QuietHarbourEasy.\n"
    "Vault label: LANTERN_KEEPER_HARD (keep it safe)\n"
    "gate EASY_GATE_CODE opens the yard\n"
    "Password: HARBOURKEYEASY20250,00,12,40,300,200\n"
    "Decoy: HARBOURKEYEASY2024 was last year's\n"
)


def seen(text: str = PAGE) -> SeenText:
    store = SeenText()
    store.add(text)
    return store


def outcome(answer: str) -> AgentOutcome:
    return AgentOutcome(answer, True, "succeeded", 2, 2, 10, 10)


@pytest.mark.parametrize(
    "answer", ["QuietHarbourEasy", "LANTERN_KEEPER_HARD", "EASY_GATE_CODE", "lantern-keeper_x"]
)
def test_identifiers_without_digits_are_claims(answer: str) -> None:
    assert [c.kind for c in claims_of(f"The code is {answer}.")] == ["code"]


@pytest.mark.parametrize("word", ["Hello", "word", "WORLD", "well-known", "e-mail", "iOS"])
def test_plain_words_are_not_claims(word: str) -> None:
    assert claims_of(f"It says {word} here") == []


@pytest.mark.parametrize(
    ("answer", "unseen"),
    [
        ("QuietHarbourEasy", False),
        ("QuietHarborEasy", True),  # misread: flagged
        ("LANTERN_KEEPER_HARD", False),
        ("LANTERN_KEEPER_HAND", True),
        ("EASY_GATE_CODE", False),
        ("HARBOURKEYEASY2025", False),  # run together with the text after it
        ("HARBOURKEYEASY2026", True),
    ],
)
def test_identifiers_are_looked_up(answer: str, unseen: bool) -> None:
    verdict = seen().check(claims_of(f"The answer is {answer}"))
    assert bool(verdict.unseen) is unseen, verdict
    assert verdict.checked == 1


def test_a_short_code_still_needs_its_boundaries() -> None:
    assert seen("Order Q-48210").check(claims_of("Q-4821")).unseen


async def test_run_together_text_is_verified_and_reported() -> None:
    settled = await answer_check.settle(
        outcome("HARBOURKEYEASY2025"), seen(), FakeLLM([]), "find the password"
    )
    assert settled.grounding is not None
    assert settled.grounding["verdict"] == "verified"
    assert settled.grounding["run_together"] == ["HARBOURKEYEASY2025"]


async def test_a_correction_that_states_what_no_page_showed_is_not_taken() -> None:
    llm = FakeLLM([reply(content="HARBOURKEYEASY2026")])
    settled = await answer_check.settle(
        outcome("HARBOURKEYEASY2027"), seen(), llm, "find the password"
    )
    assert settled.answer == "HARBOURKEYEASY2027"
    assert settled.grounding is not None
    assert settled.grounding["verdict"] == "unverified"
    assert settled.grounding["rejected_correction"] == "HARBOURKEYEASY2026"


async def test_a_correction_may_not_drop_what_was_seen() -> None:
    llm = FakeLLM([reply(content="gate HARBOURKEYEASY2024")])
    settled = await answer_check.settle(
        outcome("gate EASY_GATE_CODE, vault LANTERN_KEEPER_HAND"), seen(), llm, "codes?"
    )
    assert settled.answer == "gate EASY_GATE_CODE, vault LANTERN_KEEPER_HAND"
    assert settled.grounding is not None and settled.grounding["rejected_correction"]


async def test_the_hint_does_not_offer_a_closest_string() -> None:
    llm = FakeLLM([reply(content="QuietHarbourEasy")])
    settled = await answer_check.settle(outcome("QuietHarborEasy"), seen(), llm, "passphrase?")
    ((_role, messages, _),) = llm.calls
    asked = messages[-1]["content"]
    assert "closest" not in asked.lower()
    assert settled.answer == "QuietHarbourEasy"
    assert settled.grounding is not None and settled.grounding["verdict"] == "verified"
