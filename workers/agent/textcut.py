"""Shortening text without breaking a character (issue 27 item 1).

Every place that shortens text for the model, the events or the Ledger cuts here, on a
grapheme boundary: never between the two halves of a surrogate pair (Python strings are code
points, but strings from pages can carry lone halves), never inside an emoji sequence (ZWJ
families, skin tones, flags, keycaps), never between a letter and its combining marks.

The boundary rule is Unicode's extended grapheme cluster (UAX #29) reduced to the cases
that occur in page text: a character continues the cluster before it when it is a
combining mark (Mn, Mc, Me), a zero-width joiner or follows one, a variation selector, an
emoji modifier, a tag character, the second regional indicator of a pair, a Hangul vowel or
final jamo, or the LF of a CRLF. The browser side (`runtime/js/unicode_text.js`) uses the
browser's own `Intl.Segmenter`; both agree on the test corpus of emoji-dense pages.

`well_formed` replaces lone surrogates (which UTF-8 cannot encode) with U+FFFD.
"""

from __future__ import annotations

import unicodedata

ELLIPSIS = "…"
ZWJ = "\u200d"
_MARKS = frozenset({"Mn", "Mc", "Me"})


def _regional(ch: str) -> bool:
    return "\U0001f1e6" <= ch <= "\U0001f1ff"


def _extends(ch: str) -> bool:
    """`ch` never starts a cluster of its own."""
    return (
        ch == ZWJ
        or "\ufe00" <= ch <= "\ufe0f"
        or "\U0001f3fb" <= ch <= "\U0001f3ff"
        or "\U000e0020" <= ch <= "\U000e007f"
        or "\U000e0100" <= ch <= "\U000e01ef"
        or "\u1160" <= ch <= "\u11ff"
        or unicodedata.category(ch) in _MARKS
    )


def joins(s: str, i: int) -> bool:
    """Position i (0 < i < len(s)) is inside a grapheme cluster, not between two."""
    ch, before = s[i], s[i - 1]
    if _extends(ch) or before == ZWJ or (before == "\r" and ch == "\n"):
        return True
    if _surrogate_pair(before, ch):
        return True
    if _regional(ch) and _regional(before):
        run = 0
        while i - run - 1 >= 0 and _regional(s[i - run - 1]):
            run += 1
        return run % 2 == 1
    return False


def _surrogate_pair(high: str, low: str) -> bool:
    return "\ud800" <= high <= "\udbff" and "\udc00" <= low <= "\udfff"


def boundary_at_or_before(s: str, n: int) -> int:
    """The largest grapheme boundary <= n."""
    n = max(0, min(n, len(s)))
    while 0 < n < len(s) and joins(s, n):
        n -= 1
    return n


def cut(s: str, n: int) -> str:
    """At most n characters of `s`, ending on a grapheme boundary (no marker)."""
    if len(s) <= n:
        return s
    return s[: boundary_at_or_before(s, n)]


def clip(s: str, n: int, mark: str = ELLIPSIS) -> str:
    """`s` if it fits in n characters, else its head and `mark`, n characters at most."""
    if len(s) <= n:
        return s
    return cut(s, max(0, n - len(mark))) + mark


def as_written(s: str, n: int, mark: str = ELLIPSIS) -> str:
    """The model's own text (its notes, a fact it recorded) as it wrote it: newlines and
    indentation kept (a text to copy exactly must survive the Ledger), only the ends
    trimmed, n characters at most (relay 2026-11-27 finding 7)."""
    return clip(str(s).strip(), n, mark)


def well_formed(s: str) -> str:
    """`s` with every lone surrogate replaced by U+FFFD (pairs split in two are joined)."""
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return s.encode("utf-16", "surrogatepass").decode("utf-16", "replace")
    return s


def _quarter_tokens(ch: str) -> int:
    """A character's o200k cost in quarter tokens, roughly: ASCII 1/4, Latin, Greek and
    Cyrillic letters 1/2, other BMP characters (CJK, symbols, joiners) 1, characters beyond
    the BMP (emoji) 3 (a fox emoji is 3 o200k tokens; an emoji-dense page's 9,508 characters
    are 18,930)."""
    code = ord(ch)
    if code < 0x80:
        return 1
    if code < 0x300 or 0x370 <= code < 0x530:
        return 2
    return 4 if code <= 0xFFFF else 12


def estimate_tokens(s: str) -> int:
    """A fast token estimate (no tokenizer): see _quarter_tokens."""
    return (sum(_quarter_tokens(ch) for ch in s) + 3) // 4


def fit_tokens(s: str, budget: int) -> tuple[str, bool]:
    """(the head of `s` that fits in about `budget` tokens, whether anything was cut)."""
    allowed, used = budget * 4, 0
    for i, ch in enumerate(s):
        used += _quarter_tokens(ch)
        if used > allowed:
            return cut(s, i), True
    return s, False
