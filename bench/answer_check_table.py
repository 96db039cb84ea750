"""The answer check's verdicts on 30 answers (issue 27 item 4).

Each case is a page text the run saw, the model's final answer, whether that answer is
right, and what the model replies when the check asks it once to recheck (by default it
repeats itself). The script runs the real check (`answer_check.settle`) and prints a
Markdown table: the verdict, what was unseen, what was seen run together, the answer kept.
Run it on a checkout of main by pointing PYTHONPATH there to get the "before" column:

    .venv/bin/python -m bench.answer_check_table
    PYTHONPATH=/tmp/base .venv/bin/python bench/answer_check_table.py
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from workers.agent.judge import answer_check
from workers.agent.judge.claims import SeenText
from workers.agent.protocols import AgentOutcome
from workers.agent.testing import FakeLLM, reply

SHOP = "Order Q-4821 shipped 2026-03-14. Widget $1,299.00. SKU AB12CD. Ref ORD-2024-0017."
VAULT = (
    "Your passphrase is QuietHarbourEasy. Vault label: LANTERN_KEEPER_HARD.\n"
    "gate EASY_GATE_CODE opens the yard; mode key HardModeKey; trail silverFoxTrail\n"
    "Word of the day: MISTYHOLLOW"
)
GLUED = "Password: HARBOURKEYEASY20250,00,12,40,300,200\nDecoy: HARBOURKEYEASY2024 (old)"
IMAGE = "[image] a badge photo; alt: staff badge"  # the code is only in the pixels
LOOKED = "look: the badge reads BADGE_ORCHID_NINE and number 7741-KQ"


@dataclass(frozen=True)
class Case:
    group: str
    page: str
    answer: str
    right: bool
    recheck: str | None = None  # the model's reply to the check (None: repeats its answer)
    right_after: bool | None = None  # the reply is right (None: as `right`)


CASES = [
    Case("digits", SHOP, "Q-4821", True),
    Case("digits", SHOP, "Q-4812", False),
    Case("digits", SHOP, "ORD-2024-0017", True),
    Case("digits", SHOP, "AB-12-CD", True),
    Case("digits", SHOP, "$1,299", True),
    Case("digits", SHOP, "Q-4821 on 2026-03-15", False),
    Case("no digits", VAULT, "QuietHarbourEasy", True),
    Case("no digits", VAULT, "QuietHarborEasy", False),
    Case("no digits", VAULT, "LANTERN_KEEPER_HARD", True),
    Case("no digits", VAULT, "LANTERN_KEEPER_HAND", False),
    Case("no digits", VAULT, "EASY_GATE_CODE", True),
    Case("no digits", VAULT, "EASY_GATE", False),
    Case("no digits", VAULT, "HardModeKey", True),
    Case("no digits", VAULT, "silverFoxTrail", True),
    Case("no digits", VAULT, "SilverFoxTail", False),
    Case("no digits", VAULT, "MISTYHOLLOW", True),
    Case("no digits", VAULT, "MISTYHOLOW", False),
    Case("run together", GLUED, "HARBOURKEYEASY2025", True),
    Case("run together", GLUED, "HARBOURKEYEASY2026", False),
    Case("run together", GLUED, "HARBOURKEYEASY202", False),
    Case("run together", "Order Q-48210", "Q-4821", False),
    Case("run together", GLUED, "Password: HARBOURKEYEASY2025", True),
    Case("run together", "key=ZETA_RIVER_NORTHx9;next", "ZETA_RIVER_NORTH", False),
    Case("from images", IMAGE, "BADGE_ORCHID_NINE", True),
    Case("from images", IMAGE + "\n" + LOOKED, "BADGE_ORCHID_NINE", True),
    Case("from images", IMAGE + "\n" + LOOKED, "7741-KQ", True),
    Case("from images", IMAGE + "\n" + LOOKED, "BADGE_ORCHID_MINE", False),
    Case(
        "recheck",
        GLUED,
        "HARBOURKEYEASY2027",
        False,
        recheck="HARBOURKEYEASY2024",
        right_after=False,
    ),
    Case("recheck", VAULT, "QuietHarborEasy", False, recheck="QuietHarbourEasy", right_after=True),
    Case(
        "recheck",
        VAULT,
        "EASY_GATE_CODE and LANTERN_KEEPER_HAND",
        False,
        recheck="EASY_GATE",
        right_after=False,
    ),
]


async def judge(case: Case) -> dict[str, object]:
    seen = SeenText()
    seen.add(case.page)
    llm = FakeLLM([reply(content=case.recheck or case.answer)])
    outcome = AgentOutcome(case.answer, True, "succeeded", 2, 2, 10, 10)
    settled = await answer_check.settle(outcome, seen, llm, "report the code")
    grounding = dict(settled.grounding or {})
    return {"answer": settled.answer, "asked": bool(llm.calls), **grounding}


def row(i: int, case: Case, got: dict[str, object]) -> str:
    verdict = str(got.get("verdict"))
    unseen = ", ".join(map(str, got.get("unseen") or [])) or "-"
    glued = ", ".join(map(str, got.get("run_together") or [])) or "-"
    changed = got["answer"] != case.answer
    kept = f"`{got['answer']}`" if changed else "(as given)"
    ok = case.right_after if changed and case.right_after is not None else case.right
    wrong_pass = "**wrong, passes**" if verdict != "unverified" and not ok else ""
    right = "right" if case.right else "wrong"
    cells = [str(i), case.group, f"`{case.answer}`", right, verdict, unseen, glued]
    return "| " + " | ".join([*cells, f"{kept} {wrong_pass}".strip()]) + " |"


def final_right(case: Case, got: dict[str, object]) -> bool:
    changed = got["answer"] != case.answer
    return case.right_after if changed and case.right_after is not None else case.right


async def main() -> None:
    print("| # | group | answer | truth | verdict | unseen | run together | answer after check |")
    print("|---|---|---|---|---|---|---|---|")
    counts: dict[str, int] = {}
    for i, case in enumerate(CASES, 1):
        got = await judge(case)
        print(row(i, case, got))
        flagged = got.get("verdict") == "unverified"
        right = final_right(case, got)
        key = ("right" if right else "wrong") + (" flagged" if flagged else " passed")
        counts[key] = counts.get(key, 0) + 1
        counts[str(got.get("verdict"))] = counts.get(str(got.get("verdict")), 0) + 1
    print()
    print(", ".join(f"{k}: {v}" for k, v in sorted(counts.items())))


if __name__ == "__main__":
    asyncio.run(main())
