"""An emoji-dense corpus (issue 27 item 1): every kind of multi-unit character a cut can
split, as a list of grapheme clusters so a test knows every boundary."""

from __future__ import annotations

from itertools import accumulate, cycle, islice

CLUSTERS: tuple[str, ...] = (
    "🚙",  # one astral code point: two UTF-16 units
    "👨\u200d👩\u200d👧",  # ZWJ family
    "👍🏽",  # skin-tone modifier
    "🇫🇷",  # flag: a regional indicator pair
    "1\ufe0f\u20e3",  # keycap: digit, VS16, enclosing keycap
    "e\u0301",  # letter + combining acute
    "❤\ufe0f",  # BMP emoji + VS16
    "\U0001f3f4\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f",  # tag sequence
    "a",
    " ",
    "\u1100\u1161\u11a8",  # conjoining Hangul jamo
    "🧑\u200d💻",
)


def dense(count: int, shift: int = 0) -> tuple[str, ...]:
    """`count` clusters of the corpus, starting at cluster `shift`."""
    return tuple(islice(cycle(CLUSTERS[shift % len(CLUSTERS) :] + CLUSTERS), count))


def text(clusters: tuple[str, ...]) -> str:
    return "".join(clusters)


def boundaries(clusters: tuple[str, ...]) -> set[int]:
    """Every code-point offset between two clusters (0 and the end included)."""
    return {0, *accumulate(len(c) for c in clusters)}


def utf16_len(s: str) -> int:
    return len(s.encode("utf-16-le")) // 2
