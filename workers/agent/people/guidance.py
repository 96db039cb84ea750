"""Operator guidance turned into directives (seed 004 §3.1 Experience-Imitation Planning;
seed 003 §9.4 domain-specific configuration).

Seed 004's planner retrieves site-specific resources (help centres, user guides) and, before
the loop starts, synthesises the instruction and the target URL into "a high-level plan
consisting of 2-4 imperative directives", abstract actions rather than selectors. Here the
resources are the operator's own markdown guides for the start domain (and the tenant's
guides for every site), never fetched from the web:

    passages(guides)              each guide cut at its headings and blank lines
    select(passages, instruction) the PASSAGES_KEPT passages that share most with the task
                                  (BM25, k1 = 1.2, b = 0.75); none when nothing matches
    directives(llm, ...)          one Planner-role call: the passages, the domain's learnings
                                  (fenced as earlier runs' page-derived text) -> JSON
                                  {"directives": [...]} -> refine()
    refine(items)                 one directive per item, at most DIRECTIVE_WORDS words, near
                                  duplicates dropped, at most DIRECTIVES_MAX kept

Guides are operator text (trusted, like the task); learnings are not, and stay fenced.
With no guide passage that matches, no call is made and the run starts as before.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from workers.agent import prompts, textcut
from workers.agent.context.blocks import untrusted_block
from workers.agent.protocols import LLM, Guide
from workers.agent.roles.base import RoleCall, as_list, json_schema_format, parse_json_object

PASSAGES_KEPT = 3
PASSAGE_CHARS = 900  # a passage longer than this is cut (the prompt stays small)
DIRECTIVES_MIN, DIRECTIVES_MAX = 2, 4  # seed 004 §3.1: "2-4 imperative directives"
DIRECTIVE_WORDS = 20
BM25_K1, BM25_B = 1.2, 0.75
STOP = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "how",
        "i",
        "in",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "our",
        "the",
        "this",
        "to",
        "was",
        "we",
        "what",
        "when",
        "where",
        "which",
        "who",
        "will",
        "with",
        "you",
        "your",
        "do",
        "does",
        "can",
        "not",
    ]
)
SCHEMA = {
    "type": "object",
    "properties": {"directives": {"type": "array", "items": {"type": "string"}}},
    "required": ["directives"],
}
RESPONSE_FORMAT = json_schema_format("guidance_directives", SCHEMA)
_HEADING = re.compile(r"^#{1,6}\s+(.*)$")


@dataclass(frozen=True)
class Passage:
    guide: str  # the guide's title
    heading: str  # the section the passage sits in
    text: str


def words(text: str) -> list[str]:
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) > 1 and w not in STOP]


def passages(guides: Iterable[Guide]) -> list[Passage]:
    """Every guide cut at its headings and blank lines; a passage keeps its heading."""
    found: list[Passage] = []
    for guide in guides:
        heading, lines = "", list[str]()
        for line in [*guide.body.splitlines(), ""]:
            match = _HEADING.match(line.strip())
            if match or not line.strip():
                text = " ".join(lines).strip()
                if text:
                    found.append(Passage(guide.title, heading, textcut.cut(text, PASSAGE_CHARS)))
                lines = []
                heading = match[1].strip() if match else heading
                continue
            lines.append(line.strip())
    return found


def select(candidates: Sequence[Passage], instruction: str) -> list[Passage]:
    """The passages most relevant to the instruction by BM25, best first; none that share
    no word with it."""
    query = set(words(instruction))
    docs = [words(f"{p.guide} {p.heading} {p.text}") for p in candidates]
    if not query or not docs:
        return []
    avg = sum(len(d) for d in docs) / len(docs) or 1.0
    df = Counter(w for d in docs for w in set(d))
    scored = []
    for passage, doc in zip(candidates, docs, strict=True):
        tf = Counter(doc)
        score = 0.0
        for w in query & tf.keys():
            idf = math.log(1 + (len(docs) - df[w] + 0.5) / (df[w] + 0.5))
            norm = tf[w] + BM25_K1 * (1 - BM25_B + BM25_B * len(doc) / avg)
            score += idf * tf[w] * (BM25_K1 + 1) / norm
        if score > 0:
            scored.append((score, passage))
    scored.sort(key=lambda pair: -pair[0])  # stable: guide order breaks ties
    return [p for _, p in scored[:PASSAGES_KEPT]]


def refine(items: Iterable[str]) -> tuple[str, ...]:
    """Seed 004's refinement layer: one short imperative per item, no near duplicates."""
    kept: list[str] = []
    seen: set[tuple[str, ...]] = set()
    for item in items:
        text = " ".join(str(item).split()).strip(" -*•")
        if not text:
            continue
        cut = text.split()
        if len(cut) > DIRECTIVE_WORDS:
            text = " ".join(cut[:DIRECTIVE_WORDS]).rstrip(",;:") + "…"
        key = tuple(sorted(set(words(text))))
        if key in seen:
            continue
        seen.add(key)
        kept.append(text)
    return tuple(kept[:DIRECTIVES_MAX])


def render_passages(picked: Sequence[Passage]) -> str:
    return "\n\n".join(
        f"[{p.guide}{' / ' + p.heading if p.heading else ''}]\n{p.text}" for p in picked
    )


async def directives(
    llm: LLM, instruction: str, start_url: str, picked: Sequence[Passage], learnings: str
) -> tuple[str, ...]:
    """One Planner-role call: the 2-4 directives the run starts with (empty on a bad reply)."""
    messages = prompts.exchange(
        "guidance_system.md",
        "guidance_request.md",
        instruction=instruction,
        start_url=start_url or "(none)",
        passages=render_passages(picked),
        learnings=untrusted_block(learnings) if learnings else "(none)",
        lo=DIRECTIVES_MIN,
        hi=DIRECTIVES_MAX,
    )
    call = RoleCall("planner", messages, response_format=RESPONSE_FORMAT)
    data = parse_json_object((await call.send(llm)).content)
    return refine(as_list(data.get("directives"))) if data else ()
