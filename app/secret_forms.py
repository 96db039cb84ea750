"""The forms a secret value takes in text a page, a script or a browser can produce, masked
as one: one compiled regular expression over every form of every value, one pass per text
(issue 32 item 3, issue 35).

A page on a secret's own domain may echo the value back, a script run with `allow_scripts`
may transform it, and a browser encodes it into URLs (a GET form puts a password field's
value into the query string). `SecretForms(values)` finds, for every value of a task, the
value forwards and reversed, any letter case, where each character may be written as:

    itself                          V
    URL encoding of its UTF-8 bytes %56  (so Python's quote/quote_plus, JavaScript's
                                    encodeURIComponent/encodeURI and the WHATWG
                                    application/x-www-form-urlencoded serializer, which
                                    leave different characters unescaped, all match; a
                                    space may be + or %20), also encoded twice (%2556: a
                                    URL inside a URL), and the one byte of a Latin-1
                                    character (%E9: a form on a windows-1252 page)
    hex of its UTF-8 bytes          56  \\x56  0x56
    a character code                86  0086  \\u0056  \\u{56}  %u0056 (JavaScript's
                                    escape()); outside the BMP as a UTF-16 surrogate pair
                                    (\\ud83d\\ude00, %uD83D%uDE00), as JSON and escape() write it
    an HTML character reference     &#86; &#0086; &#x56; &#x0056; &amp; &quot; (';' optional)
    a JSON escape                   \\"  \\\\  \\/, and URL-encoded (%5C%22, %5Cu00e9: JSON in a
                                    query string or a form body)

(characters of one value may mix these), and between two characters up to SEPARATORS_MAX
of: whitespace - _ . , : ; | / \\ * + · • %20 &nbsp; and the zero-width characters U+200B..
U+200D, U+2060, U+FEFF, U+00AD. So spaced hex ("56 61 75"), char-code lists ("86,97,117",
"86 97 117"), zero-width joins and 1-4 separators are matched. A value of fewer than
SEPARATED_MIN characters is matched only without visible separators; spaces around a value
are not part of what is matched. The pattern starts with the class of every form's first
character, so the engine skips in C every position that starts no form; separator runs are
possessive, so a failing candidate does not backtrack through them.

Also: base64 (standard and URL-safe, padded or not, at any byte alignment inside a longer
base64 text: the characters that depend only on the value; its + / = also URL-encoded, once
or twice, as in a query or form value), and, for a value of at least
HALVES_MIN characters, each half (split at the middle) as plain text in any letter case.

Not covered (said in docs/security.md): other encodings or ciphers (ROT13, base32,
compression, encryption), encodings nested other than as listed (base64 of URL-encoded or
JSON-escaped text, URL encoding three times), a value split other than at its middle or
across more than two places, shorter partial copies (a prefix or a few characters), a
separator run longer than SEPARATORS_MAX or made of other characters, and values shorter
than MIN_CHARS (never masked: they would mask ordinary words).
"""

from __future__ import annotations

import base64
import html.entities
import re
from collections.abc import Iterable, Mapping
from typing import Any

MASK = "[secret]"
MIN_CHARS = 3
SEPARATED_MIN = 5  # "a b c" would be found in ordinary prose
SEPARATORS_MAX = 4
HALVES_MIN = 12  # each half has at least 6 characters
B64_MIN = 6  # shortest stable base64 run worth matching
VISIBLE_SEPARATORS = " \t\r\n\f\v-_.,:;|/*+\u00b7\u2022"
ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff\u00ad"
JSON_ESCAPES = {'"': r'\\"', "\\": r"\\\\", "/": r"\\/"}


Alt = tuple[str, str]  # (first character, regex source for the rest)


def _ci(text: str) -> str:
    """`text` as a regex matching it in any letter case, without the IGNORECASE flag."""
    out = []
    for c in text:
        if c.lower() != c.upper() and len(c.lower()) == len(c.upper()) == 1:
            out.append(f"[{re.escape(c.lower())}{re.escape(c.upper())}]")
        else:
            out.append(re.escape(c))
    return "".join(out)


def _cases(first: str, rest: str) -> list[Alt]:
    """(first, rest) for each letter case of `first`."""
    return [(f, rest) for f in dict.fromkeys((first, first.lower(), first.upper()))]


def _units(cp: int, lead: str, between: str) -> str:
    """Regex for `cp` as uXXXX escapes after an escape's first character: `lead`, then the
    escape, or a surrogate pair (outside the BMP, as JSON and JavaScript write it) with
    `between` (a whole escape prefix) before the second half."""
    units = [cp] if cp <= 0xFFFF else [0xD800 + ((cp - 0x10000) >> 10), 0xDC00 + (cp & 0x3FF)]
    return lead + between.join("[uU]" + _ci(f"{u:04x}") for u in units)


def _encodings(c: str) -> list[Alt]:
    """One character in every per-character encoding, as (first character, rest)."""
    data, cp = c.encode("utf-8"), ord(c)
    hexes = [f"{b:02x}" for b in data]
    alts = [  # longer encodings first: the value's last character ends the match
        # URL encoding, once or twice (%25 is the % of an encoded URL encoded again)
        ("%", "(?:25)?" + _ci(hexes[0]) + "".join("%(?:25)?" + _ci(h) for h in hexes[1:])),
        ("%", _units(cp, "", "%")),  # JavaScript's escape(): %uXXXX
        ("%", _units(cp, "5[cC]", "%5[cC]")),  # a JSON \uXXXX escape, URL-encoded
        *_cases(hexes[0][0], _ci(hexes[0][1] + "".join(hexes[1:]))),
        ("\\", "".join(("" if i == 0 else r"\\") + "[xX]" + _ci(h) for i, h in enumerate(hexes))),
        ("0", "".join(("" if i == 0 else "0") + "[xX]" + _ci(h) for i, h in enumerate(hexes))),
        (str(cp)[0], str(cp)[1:]),
        ("0", f"0{{0,3}}+{cp}"),
        ("&", f"#0{{0,4}}+{cp};?+"),
        ("&", "#[xX]0{0,4}+" + _ci(f"{cp:x}") + ";?+"),
        ("\\", _units(cp, "", r"\\")),
        ("\\", r"[uU]\{0*+" + _ci(f"{cp:x}") + r"\}"),
    ]
    if 0x80 <= cp <= 0xFF:  # a form on a Latin-1 (windows-1252) page: one byte
        alts.append(("%", "(?:25)?" + _ci(f"{cp:02x}")))
    name = html.entities.codepoint2name.get(cp)
    if name:
        alts.append(("&", f"{name};?+"))
    if c == "'":
        alts.append(("&", "apos;?+"))
    if c == " ":
        alts += [("+", ""), ("&", "nbsp;?+")]
    if c in JSON_ESCAPES:  # and URL-encoded: the backslash as %5C, the character either way
        alts.append(("\\", JSON_ESCAPES[c]))
        alts.append(("%", "5[cC](?:%" + _ci(f"{cp:02x}") + "|" + re.escape(c) + ")"))
    return list(dict.fromkeys(alts + _cases(c, "")))


def _group(c: str, seps: str) -> str:
    """`c` after a separator run: in any encoding, or (when `c` is a separator character
    itself) already taken by the run, which is possessive: `c` then 0-3 more separators
    just before this point."""
    alts = [re.escape(f) + r for f, r in _encodings(c)]
    taken = []
    if c in seps or c == "\\":
        taken.append(re.escape(c))
    if c == " " and seps:
        taken += [r"[\s+;]", "%20"]
    run = "[" + re.escape(seps + "\\") + "]"
    for mark in taken:
        alts += [f"(?<={mark}{run}{{{k}}})" for k in range(SEPARATORS_MAX)]
    return "(?:" + "|".join(alts) + ")"


def _separator(value: str) -> str:
    """Between two characters: up to SEPARATORS_MAX separators, taken possessively (no
    backtracking); a character of the value that is a separator may be in the run."""
    visible = "" if len(value) < SEPARATED_MIN else VISIBLE_SEPARATORS
    alts = ["[" + re.escape(visible + ZERO_WIDTH) + "]"]
    if visible:  # a backslash, unless it starts \xNN \uNNNN \" \\ \/
        alts += [r"\\(?![xX][0-9a-fA-F]{2}|[uU][0-9a-fA-F]{4}|[uU]\{|[\\\"/])", "%20", "&nbsp;?+"]
    return "(?:" + "|".join(alts) + f"){{0,{SEPARATORS_MAX}}}+"


def _chain(value: str, part: str) -> tuple[set[str], str]:
    """(first characters, regex after the first one) matching `part` of `value` with each
    character in any encoding, separators between: the first character is taken by the
    pattern's leading class, a look-behind says which encoding it began."""
    sep = _separator(value)
    seps = VISIBLE_SEPARATORS + ZERO_WIDTH if len(value) >= SEPARATED_MIN else ZERO_WIDTH
    encodings = _encodings(part[0])
    firsts = {first for first, _ in encodings}
    head = "|".join(f"(?<={re.escape(first)}){more}" for first, more in encodings)
    rest = "".join(sep + _group(c, seps) for c in part[1:])
    return firsts, f"{_behind(firsts)}(?:{head}){rest}"


def _behind(chars: set[str]) -> str:
    """A one-step test that the character just taken is one of `chars`."""
    return "(?<=[" + "".join(re.escape(c) for c in sorted(chars)) + "])"


def _plain(text: str) -> tuple[set[str], str]:
    """(first characters, regex after the first one) for `text` in any letter case."""
    firsts = {text[0], text[0].lower(), text[0].upper()}
    behind = "|".join(f"(?<={re.escape(f)})" for f in sorted(firsts))
    return firsts, f"(?:{behind}){_ci(text[1:])}"


def _b64_runs(value: str) -> set[str]:
    """Base64 text that depends on the value alone, for each of the three byte alignments,
    in the standard and the URL-safe alphabet; plus the value's own padded encoding."""
    data = value.encode("utf-8")
    runs = {base64.b64encode(data).decode()}
    for k in range(3):
        full = base64.b64encode(b"\0" * k + data + b"\0\0").decode()
        start = -(-k // 3) * 4  # the first quantum made of the value's bytes only
        end = (k + len(data)) // 3 * 4  # the last such quantum's end
        if end - start >= B64_MIN:
            runs.add(full[start:end])
    return runs | {r.replace("+", "-").replace("/", "_") for r in runs}


# + / = URL-encoded, once or twice
B64_URL_ENCODED = {"+": "%(?:25)?2[bB]", "/": "%(?:25)?2[fF]", "=": "%(?:25)?3[dD]"}


def _b64(run: str) -> list[Alt]:
    """A base64 run (exact case) whose + / = may be URL-encoded (a query or form value)."""
    rest = "".join(
        f"(?:{re.escape(c)}|{B64_URL_ENCODED[c]})" if c in B64_URL_ENCODED else re.escape(c)
        for c in run[1:]
    )
    alts = [(run[0], rest)]
    if run[0] in B64_URL_ENCODED:
        alts.append(("%", B64_URL_ENCODED[run[0]][1:] + rest))
    return alts


def _pattern(values: tuple[str, ...]) -> re.Pattern[str] | None:
    """One regex over every form of every value: a class of every form's first character
    (the engine skips, in C, every position that starts no form), then the alternatives.
    For each value (longest first) its base64 runs (exact case), the value and its reverse
    in every encoding; then every value's halves as plain text. The first alternative that
    matches wins, so a whole value is masked whole."""
    firsts: set[str] = set()
    whole: list[str] = []
    halves: list[str] = []
    for value in dict.fromkeys(v.strip() or v for v in values):  # spaces around: never runs
        runs = [alt for run in sorted(_b64_runs(value), key=len, reverse=True) for alt in _b64(run)]
        firsts |= {first for first, _ in runs}
        b64 = "|".join(f"(?<={re.escape(first)}){rest}" for first, rest in runs)
        whole.append(f"{_behind({first for first, _ in runs})}(?:{b64})")
        for part in (value, value[::-1]):
            starts, regex = _chain(value, part)
            firsts |= starts
            whole.append(regex)
        if len(value) >= HALVES_MIN:
            middle = len(value) // 2
            for half in (value[:middle], value[middle:]):
                starts, regex = _plain(half)
                firsts |= starts
                halves.append(regex)
    if not whole:
        return None
    lead = "[" + "".join(re.escape(f) for f in sorted(firsts)) + "]"
    return re.compile(lead + "(?:" + "|".join(whole + halves) + ")")


class SecretForms:
    """Finds and masks every value of `values` in the forms listed in the module docstring."""

    def __init__(self, values: Iterable[str], mask: str = MASK) -> None:
        self.mask_text = mask
        kept = sorted({v for v in values if len(v) >= MIN_CHARS}, key=len, reverse=True)
        self.values = tuple(kept)
        self._pattern = _pattern(self.values)

    def __bool__(self) -> bool:
        return bool(self.values)

    def mask(self, text: str) -> str:
        if self._pattern is None:
            return text
        return self._pattern.sub(self.mask_text, text)

    def found(self, text: str) -> bool:
        return self._pattern is not None and self._pattern.search(text) is not None

    def first(self, text: str, around: int = 60) -> str | None:
        """The first form found in `text`, [[marked]] with `around` characters either side."""
        match = self._pattern.search(text) if self._pattern is not None else None
        if match is None:
            return None
        start, end = match.span()
        return f"{text[max(0, start - around) : start]}[[{match[0]}]]{text[end : end + around]}"

    def redact(self, value: Any) -> Any:
        """`value` (str, or JSON-like dict/list nesting) with every form masked."""
        if not self.values:
            return value
        if isinstance(value, str):
            return self.mask(value)
        if isinstance(value, Mapping):
            return {self.redact(k): self.redact(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return type(value)(self.redact(v) for v in value)
        return value
