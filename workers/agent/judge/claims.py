"""The checkable claims of a final answer, and whether the run saw them (issue 10).

`claims_of(text)` picks what can be looked up: URLs, e-mail addresses, quoted strings,
codes and identifiers (Q-4821, ORD-2024-0017, SKU A12B, and without digits: LANTERN_KEEPER,
QuietHarbourEasy, MISTYHOLLOW — letters joined by underscores, mixed case inside a word, or
CAPS_MIN capitals; issue 27),
ISO dates, money amounts and other numbers. `SeenText` holds what the run actually saw,
normalized (case, whitespace, quote and dash forms, thousands separators, currency symbols)
and bounded in memory. `SeenText.check`
says which claims were seen, which numbers were derived from seen numbers, and which were
seen nowhere.

A number counts as seen when it equals a seen number ($1,299.00 = 1299), is the sum or the
difference of two seen numbers, the sum of a run of consecutive numbers on one page (a
column total, also over the money amounts of a page alone), or a count: a whole number up to
COUNT_LIMIT. Products, averages and percentages are not derived: they stay unseen.

A code is seen where the page shows it between boundaries (Q-4821 is not in Q-48210), or,
when it has at least GLUED_MIN letters and digits, anywhere inside a longer run of text
(`Password: HARBOURKEYEASY20250,00,…` shows HARBOURKEYEASY2025): such claims are seen and
listed as `run_together`, so a reader knows the page did not mark where the value ends.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

MAX_TEXT_CHARS = 4_000_000  # normalized text kept for phrase lookups
MAX_TOKENS = 300_000  # distinct words kept once the text is full
MAX_NUMBERS = 3_000  # distinct numbers for the sum/difference check
MAX_RUN = 400  # numbers of one page kept for the run-sum check
MAX_RUNS = 400  # pages (runs) kept
MAX_CLAIMS = 40
COUNT_LIMIT = 20  # whole numbers up to this are counts, never flagged
MIN_RESPELLED = 5  # letters and digits a code needs to be matched with other separators
GLUED_MIN = 8  # letters and digits a code needs to be seen run together with other text
IDENT_MIN = 6  # letters of a mixed-case identifier without digits (iOS, McD are words)
CAPS_MIN = 8  # letters of an all-capitals word read as a code (MISTYHOLLOW; not NASA, FAQ)

_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "«": '"', "»": '"', "’": "'", "‘": "'"})
_DASHES = re.compile(r"[\u2010-\u2015\u2212]")
_SPACE = re.compile(r"\s+")
_URL = re.compile(r"https?://[^\s<>\"'()\[\]{}]+", re.I)
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_QUOTED = re.compile(r'"([^"\n]{3,200})"')
_DATE = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_CODE = re.compile(r"#?\b[A-Za-z0-9]+(?:[-_/.][A-Za-z0-9]+)*\b")
_UNIT = re.compile(r"^\d+(?:st|nd|rd|th|am|pm|x|k|kg|g|cm|mm|km|m|gb|mb|tb|kb|h|s|ms|min|px|%)$")
_NUMBER = re.compile(
    r"(?<![\w.])(?P<cur>[$€£¥₹]\s?)?(?P<num>\d{1,3}(?:,\d{3}(?!\d))+(?:\.\d+)?|\d+(?:\.\d+)?)"
    r"(?P<code>\s?(?:USD|EUR|GBP|JPY|CHF)\b)?",
    re.I,
)
_JOINERS = re.compile(r"[-_/.]")
_CAMEL = re.compile(r"[a-z][A-Z]")
_HUMPS = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
_WORD = re.compile(r"[\w@.+/:-]+")
_MONTHS = [
    *("january", "february", "march", "april", "may", "june"),
    *("july", "august", "september", "october", "november", "december"),
]


def normalize(text: str) -> str:
    """Case, compatibility forms, quotes, dashes and whitespace folded."""
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    return _SPACE.sub(" ", _DASHES.sub("-", text)).casefold().strip()


def number(raw: str) -> Decimal | None:
    """'1,299.00' -> Decimal('1299'); None when not a number."""
    try:
        return Decimal(raw.replace(",", "")).normalize()
    except InvalidOperation:
        return None


@dataclass(frozen=True)
class Claim:
    """One checkable statement: `kind` (url, email, quote, code, date, money, number)."""

    kind: str
    text: str  # as the answer wrote it
    key: str  # normalized form looked up
    value: Decimal | None = None  # for money and number

    @property
    def spellings(self) -> tuple[str, ...]:
        """The keys a page may show it by: a code with other separators, or its humps."""
        if self.kind != "code":
            return (self.key,)
        humps = normalize(" ".join(_HUMPS.split(self.text.lstrip("#"))))
        return tuple(dict.fromkeys((*_spellings(self.key), humps)))


def _take(pattern: re.Pattern[str], text: str) -> tuple[list[re.Match[str]], str]:
    """The matches, and `text` with them blanked (so a URL's digits are not numbers too)."""
    found = list(pattern.finditer(text))
    for m in found:
        text = text[: m.start()] + " " * (m.end() - m.start()) + text[m.end() :]
    return found, text


def _is_code(token: str) -> bool:
    bare = token.lstrip("#")
    if _UNIT.match(bare.lower()):
        return False
    has_digit = any(c.isdigit() for c in bare)
    has_alpha = any(c.isalpha() for c in bare)
    joined = any(c in "-_/" for c in bare)
    if has_digit:
        return has_alpha or joined or token.startswith("#")
    return _identifier(bare)


def _identifier(bare: str) -> bool:
    """Letters joined by underscores (EASY_GATE_CODE) or mixed case inside a word
    (QuietHarbourEasy): names a page gives a value, not words of prose."""
    parts = [p for p in bare.split("_") if p]
    if len(parts) >= 2 and all(p.replace("-", "").isalpha() for p in parts):
        return True
    letters = sum(c.isalpha() for c in bare)
    if letters >= CAPS_MIN and bare.isalpha() and bare.isupper():
        return True
    return letters >= IDENT_MIN and bool(_CAMEL.search(bare)) and bare[1:].lower() != bare[1:]


def claims_of(text: str) -> list[Claim]:
    """The checkable claims in `text`, each once, at most MAX_CLAIMS."""
    out: list[Claim] = []
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    text = _DASHES.sub("-", text)
    urls, text = _take(_URL, text)
    out += [Claim("url", u, _url_key(u)) for u in (m.group().rstrip(".,;:!?") for m in urls)]
    emails, text = _take(_EMAIL, text)
    out += [Claim("email", m.group(), m.group().casefold()) for m in emails]
    quotes, text = _take(_QUOTED, text)
    out += [Claim("quote", m.group(1), normalize(m.group(1))) for m in quotes if m.group(1).strip()]
    dates, text = _take(_DATE, text)
    out += [Claim("date", m.group(), m.group()) for m in dates]
    codes = [m for m in _CODE.finditer(text) if _is_code(m.group())]
    for m in codes:
        text = text[: m.start()] + " " * (m.end() - m.start()) + text[m.end() :]
    out += [Claim("code", m.group(), normalize(m.group().lstrip("#"))) for m in codes]
    for m in _NUMBER.finditer(text):
        value = number(m.group("num"))
        if value is None:
            continue
        kind = "money" if m.group("cur") or m.group("code") else "number"
        out.append(Claim(kind, m.group().strip(), str(value), value))
    unique = {(c.kind, c.key): c for c in reversed(out)}
    ordered = [c for c in out if unique.get((c.kind, c.key)) is c]
    return ordered[:MAX_CLAIMS]


def _url_key(url: str) -> str:
    return normalize(url).rstrip("/").removeprefix("https://").removeprefix("http://")


def strings_in(value: object) -> Iterator[str]:
    """Every string and number inside a JSON value (the structured result), as text."""
    if isinstance(value, dict):
        for item in value.values():
            yield from strings_in(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings_in(item)
    elif isinstance(value, bool) or value is None:
        return
    elif isinstance(value, int | float):
        yield repr(value)
    elif isinstance(value, str):
        yield value  # read like answer text: its quotes, codes, numbers (no paraphrase check)


@dataclass
class Verdict:
    """Which claims the run saw, derived (numbers) or never saw."""

    seen: list[Claim] = field(default_factory=list)
    derived: list[Claim] = field(default_factory=list)
    unseen: list[Claim] = field(default_factory=list)
    run_together: list[Claim] = field(default_factory=list)  # seen, glued to other text

    @property
    def checked(self) -> int:
        return len(self.seen) + len(self.derived) + len(self.unseen)


class SeenText:
    """What the run saw, normalized and bounded; `add` is cheap, `check` runs once."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.chars = 0
        self.digests: set[bytes] = set()
        self.tokens: set[str] = set()
        self.numbers: dict[Decimal, None] = {}  # insertion-ordered set
        self.runs: list[tuple[Decimal, ...]] = []

    def add(self, text: str) -> None:
        if not text or not text.strip():
            return
        digest = hashlib.blake2b(text.encode("utf-8", "replace"), digest_size=16).digest()
        if digest in self.digests:
            return
        self.digests.add(digest)
        norm = normalize(text)
        if self.chars + len(norm) <= MAX_TEXT_CHARS:
            self.parts.append(norm)
            self.chars += len(norm)
        elif len(self.tokens) < MAX_TOKENS:
            self.tokens.update(_WORD.findall(norm))
        self._add_numbers(norm)

    def _add_numbers(self, norm: str) -> None:
        run: list[Decimal] = []
        money: list[Decimal] = []
        for m in _NUMBER.finditer(norm):
            value = number(m.group("num"))
            if value is None:
                continue
            run.append(value)
            if m.group("cur") or m.group("code"):
                money.append(value)
            if len(self.numbers) < MAX_NUMBERS:
                self.numbers[value] = None
        for seq in (run, money):
            if len(seq) > 2 and len(self.runs) < MAX_RUNS:
                self.runs.append(tuple(seq[:MAX_RUN]))

    @property
    def text(self) -> str:
        return "\n".join(self.parts)

    def check(self, claims: Iterable[Claim]) -> Verdict:
        verdict = Verdict()
        text = self.text
        for claim in claims:
            if self._seen(claim, text):
                verdict.seen.append(claim)
            elif claim.kind == "code" and self._glued(claim, text):
                verdict.seen.append(claim)
                verdict.run_together.append(claim)
            elif claim.value is not None and self._derived(claim.value):
                verdict.derived.append(claim)
            else:
                verdict.unseen.append(claim)
        return verdict

    def _seen(self, claim: Claim, text: str) -> bool:
        if claim.value is not None:
            return claim.value in self.numbers
        if claim.kind == "date":
            return _contains(text, claim.key) or self._date_seen(claim.key, text)
        if claim.kind == "quote":
            words = claim.key.split()
            return claim.key in text or (bool(self.tokens) and all(w in self.tokens for w in words))
        return any(_contains(text, key) or key in self.tokens for key in claim.spellings)

    def _glued(self, claim: Claim, text: str) -> bool:
        """A long code inside a longer run of text (no boundary after or before it)."""
        if sum(c.isalnum() for c in claim.key) < GLUED_MIN:
            return False
        return any(key in text or any(key in t for t in self.tokens) for key in claim.spellings)

    def _date_seen(self, iso: str, text: str) -> bool:
        year, month, day = (int(x) for x in iso.split("-"))
        if not 1 <= month <= 12:
            return False
        known = {Decimal(year), Decimal(day)} <= self.numbers.keys()
        return known and (_MONTHS[month - 1] in text or _MONTHS[month - 1][:3] in text)

    def _derived(self, value: Decimal) -> bool:
        if value == value.to_integral_value() and 0 <= value <= COUNT_LIMIT:
            return True  # a count
        seen = self.numbers
        if any((value - a) in seen or (a - value) in seen for a in seen):
            return True  # a + b, or a - b
        return any(_run_sums_to(run, value) for run in self.runs)


def _spellings(code: str) -> tuple[str, ...]:
    """A code as pages write it: XPS-13, XPS 13, XPS13 (separators between its parts);
    a short one (A-1) only as written, "a 1" is in too much prose."""
    parts = _JOINERS.split(code)
    if len("".join(parts)) < MIN_RESPELLED:
        return (code,)
    return tuple(dict.fromkeys((code, " ".join(parts), "".join(parts))))


def _run_sums_to(run: tuple[Decimal, ...], value: Decimal) -> bool:
    """Some run of consecutive numbers (two or more) adds up to `value`."""
    prefixes = {Decimal(0): 0}
    total = Decimal(0)
    for i, x in enumerate(run, 1):
        total += x
        start = prefixes.get(total - value)
        if start is not None and i - start >= 2:
            return True
        prefixes.setdefault(total, i)
    return False


def _glue(ch: str) -> bool:
    """`ch` continues a word or identifier (easy_gate is not in easy_gate_code)."""
    return ch.isalnum() or ch == "_"


def _contains(text: str, key: str) -> bool:
    """`key` occurs in `text` not glued to letters or digits (q-4821 is not in q-48210)."""
    start = text.find(key)
    while start != -1:
        end = start + len(key)
        before = text[start - 1] if start else " "
        after = text[end] if end < len(text) else " "
        if not _glue(before) and not _glue(after):
            return True
        start = text.find(key, start + 1)
    return False
