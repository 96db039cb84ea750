"""The task's values in a route (issue 21, workers/agent/memory/routes.py): the tokens of an
instruction that look like values, the slots a trace used them in, the intent they leave
behind, and the templates (`{3:T} Kettle`) rendered with a new task's values on replay.
Matching rule: see routes.py's docstring (`match`).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

STOPWORDS = frozenset(
    (
        "the",
        "and",
        "for",
        "with",
        "from",
        "into",
        "onto",
        "that",
        "this",
        "then",
        "than",
        "what",
        "which",
        "where",
        "when",
        "who",
        "how",
        "all",
        "any",
        "are",
        "was",
        "were",
        "been",
        "its",
        "it's",
        "our",
        "your",
        "their",
        "them",
        "they",
        "you",
        "can",
        "could",
        "should",
        "would",
        "will",
        "shall",
        "may",
        "might",
        "must",
        "not",
        "but",
        "get",
        "got",
        "has",
        "have",
        "had",
        "does",
        "did",
        "done",
        "find",
        "please",
        "give",
        "tell",
        "show",
        "let",
        "use",
        "using",
        "also",
        "only",
        "just",
        "very",
        "some",
        "such",
        "each",
    )
)
MIN_WORD = 3  # shorter words are never values
MAX_APPEARED = 4  # controls kept per step as its visible effect
MAX_STEPS = 60  # steps kept per route
SECRET_TOKEN = re.compile(r"<secret:[A-Za-z0-9_.-]{1,64}>")
_TOKEN = re.compile(
    r'"([^"]+)"|“([^”]+)”|(\d+(?:[.,:/]\d+)*)|([^\W\d_]+(?:[\'’-][^\W\d_]+)*)', re.UNICODE
)
_CONTROL = re.compile(r'\[(\d+:\d+)\]\s+([\w-]+)(?:\s+("(?:[^"\\]|\\.)*"))?')
_HEADING = re.compile(r"^\s*#{1,6} (.+)$")
_PLACE = re.compile(r"^\s*==\s*(.*?)\s*==\s*$")
_ID_LIKE = re.compile(r"^(?:\d+|[0-9a-f]{8,}|[0-9a-f-]{32,36})$", re.I)
_PLACEHOLDER = re.compile(r"\{\{|\}\}|\{(\d+)(?::([TCUL]))?\}")
WILD = "*"
# string arguments that carry values (refs and flags are not templated)
TEXT_ARGS = ("text", "option", "url", "value", "values", "to_text", "key", "query", "pick")


# --- tokens, slots and intent --------------------------------------------------------------------


@dataclass(frozen=True)
class Token:
    text: str  # as written (without quotes)
    kind: str  # quoted | number | word

    @property
    def norm(self) -> str:
        return " ".join(self.text.lower().split())

    @property
    def candidate(self) -> bool:
        """Could this token be one of the task's values?"""
        if self.kind != "word":
            return True
        return len(self.text) >= MIN_WORD and self.norm not in STOPWORDS


def tokens(instruction: str) -> list[Token]:
    out = []
    for m in _TOKEN.finditer(instruction):
        quoted, curly, number, word = m.groups()
        if quoted or curly:
            out.append(Token((quoted or curly).strip(), "quoted"))
        elif number:
            out.append(Token(number, "number"))
        else:
            out.append(Token(word, "word"))
    return out


def intent_of(instruction: str, slots: Iterable[int]) -> str:
    """The instruction with its slots blanked: the route's intent (and its key's source)."""
    blank = set(slots)
    return " ".join("{}" if i in blank else t.norm for i, t in enumerate(tokens(instruction)))


def intent_key(intent: str) -> str:
    return hashlib.sha256(intent.encode()).hexdigest()


def match(stored_instruction: str, slots: Sequence[int], instruction: str) -> list[str] | None:
    """The new task's values by slot (None when the instruction is not this route's intent):
    every non-slot token equal case aside and in order; a run of two or more adjacent slots
    (a value of several words) takes one or more tokens of the new instruction (issue 34:
    "Hex bolt" -> "Shaft seal ring"), each slot one token and the run's last the rest."""
    old, new = tokens(stored_instruction), tokens(instruction)
    if any(i >= len(old) for i in slots):
        return None
    blank = set(slots)
    pairs = enumerate(zip(old, new, strict=False))
    if len(old) == len(new) and all(i in blank or a.norm == b.norm for i, (a, b) in pairs):
        return [t.text for t in new]
    runs: list[tuple[int, ...] | Token] = []
    for i, token in enumerate(old):
        if i in blank and runs and isinstance(runs[-1], tuple) and runs[-1][-1] == i - 1:
            runs[-1] = (*runs[-1], i)
        else:
            runs.append((i,) if i in blank else token)
    taken = _align(runs, new, 0, 0)
    if taken is None:
        return None
    values = [t.text for t in old]
    for group, span in taken:
        words = [t.text for t in span]
        for n, slot in enumerate(group):
            last = n == len(group) - 1
            values[slot] = " ".join(words[n:]) if last else (words[n] if n < len(words) else "")
    return values


def _align(
    runs: Sequence[tuple[int, ...] | Token], new: Sequence[Token], r: int, t: int
) -> list[tuple[tuple[int, ...], Sequence[Token]]] | None:
    """Literal tokens equal in order; a run of slots one token or more (shortest first), a
    single slot exactly one ("Berlin" never takes "Paris today")."""
    if r == len(runs):
        return [] if t == len(new) else None
    run = runs[r]
    if isinstance(run, Token):
        if t < len(new) and new[t].norm == run.norm:
            return _align(runs, new, r + 1, t + 1)
        return None
    longest = len(new) if len(run) > 1 else min(t + 1, len(new))  # one word stays one
    for end in range(t + 1, longest + 1):
        rest = _align(runs, new, r + 1, end)
        if rest is not None:
            return [(run, new[t:end]), *rest]
    return None


# --- templates -----------------------------------------------------------------------------------


def _case(found: str, value: str) -> str:
    if found == value:
        return ""
    if found.isupper() and not value.isupper():
        return "U"
    if found == value.title():
        return "T"
    if found == value.capitalize():
        return "C"
    if found == value.lower():
        return "L"
    return ""


def _apply_case(value: str, case: str | None) -> str:
    return {
        "U": value.upper(),
        "T": value.title(),
        "C": value.capitalize(),
        "L": value.lower(),
    }.get(case or "", value)


def _escape(text: str) -> str:
    return text.replace("{", "{{").replace("}", "}}")


@dataclass(frozen=True)
class Slots:
    """The candidate values of one instruction, by token position."""

    values: tuple[Token, ...]
    candidates: tuple[int, ...]

    @classmethod
    def of(cls, instruction: str) -> Slots:
        toks = tuple(tokens(instruction))
        return cls(toks, tuple(i for i, t in enumerate(toks) if t.candidate))

    @property
    def named(self) -> tuple[int, ...]:
        """The candidates that name a value outright: quoted, numbers, capitalised names and
        the words right after one ("Hex bolt": a name of several words)."""
        out: list[int] = []
        for i in self.candidates:
            token = self.values[i]
            if token.kind != "word" or (i > 0 and token.text[:1].isupper()) or i - 1 in out:
                out.append(i)
        return tuple(out)

    def repeats(self, used: Iterable[int]) -> set[int]:
        """The other places the instruction names a used value ("username henry, email
        henry@example.com"): slots too, or the intent keeps the value there as a word and
        no other task's values match it (issue 34, relay run roundup-15/16)."""
        norms = {self.values[i].norm for i in used}
        return {i for i in self.candidates if self.values[i].norm in norms}

    def _pattern(self, allowed: Sequence[int]) -> re.Pattern[str] | None:
        values = sorted({self.values[i].norm for i in allowed}, key=len, reverse=True)
        if not values:
            return None
        alternation = "|".join(re.escape(v).replace(r"\ ", r"\s+") for v in values)
        # not inside a word or a decimal ("1.7"); after a dot in a name or address it is a
        # value ("marta.novak@example.org", issue 34)
        return re.compile(rf"(?<!\w)(?<!\d\.)(?:{alternation})(?![\w]|\.\d)", re.I)

    def template(self, text: str, used: set[int], only: Iterable[int] | None = None) -> str:
        """`text` with every candidate value in it as `{slot:case}` (adds the slots to `used`);
        `only`: just these slots (strings that must not make new slots)."""
        allowed = tuple(self.candidates if only is None else sorted(set(only)))
        pattern = self._pattern(allowed)
        if pattern is None or not text:
            return _escape(text)
        by_norm: dict[str, int] = {}
        for i in allowed:
            by_norm.setdefault(self.values[i].norm, i)
        out, last = [], 0
        for m in pattern.finditer(text):
            slot = by_norm[" ".join(m.group(0).lower().split())]
            used.add(slot)
            case = _case(m.group(0), self.values[slot].text)
            out.append(_escape(text[last : m.start()]))
            out.append(f"{{{slot}:{case}}}" if case else f"{{{slot}}}")
            last = m.end()
        out.append(_escape(text[last:]))
        return "".join(out)


def render(template: str, values: Sequence[str]) -> str:
    """A template with the task's values in (case as the page wrote the recorded one)."""

    def put(m: re.Match[str]) -> str:
        if m.group(0) == "{{":
            return "{"
        if m.group(0) == "}}":
            return "}"
        slot = int(m.group(1))
        return _apply_case(values[slot], m.group(2)) if slot < len(values) else m.group(0)

    return _PLACEHOLDER.sub(put, template)


def template_arg(
    key: str, value: Any, slots: Slots, used: set[int], only: Iterable[int] | None = None
) -> Any:
    """An argument with the task's values as slots: strings and lists of strings of the
    value-carrying keys (TEXT_ARGS); `<secret:name>` tokens and everything else as is."""
    if key not in TEXT_ARGS:
        return value
    if isinstance(value, str):
        return value if SECRET_TOKEN.search(value) else slots.template(value, used, only)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [template_arg(key, v, slots, used, only) for v in value]
    return value


def render_arg(key: str, value: Any, values: Sequence[str]) -> Any:
    if key not in TEXT_ARGS:
        return value
    if isinstance(value, str):
        return value if SECRET_TOKEN.search(value) else render(value, values)
    if isinstance(value, list):
        return [render_arg(key, v, values) for v in value]
    return value


def slots_in(template: str) -> set[int]:
    return {int(m.group(1)) for m in _PLACEHOLDER.finditer(template) if m.group(1)}
