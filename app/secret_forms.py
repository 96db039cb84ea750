"""The forms a secret value takes in text a page or a script can produce, masked as one.

A page on a secret's own domain may echo the value back, and a script run with
`allow_scripts` may transform it; masking only the exact string let those copies through
(hardening issue, item 2). `SecretForms(values)` finds, for every value of a task:

    exact, any letter case          Hunter2-CANARY   hunter2-canary   HUNTER2-CANARY
    reversed (any case)             YRANAC-2retnuH
    separated: 1-3 of  space - _ . , : ; | / \\ * + · •  between the characters
                                    H u n t e r 2 ...   H-u-n-t-e-r-2-...  (also reversed)
    base64, standard and URL-safe, padded or not, at any byte alignment inside a longer
    base64 text (the characters that depend only on the value)
    URL encoding (%XX, + for space), HTML escaping (&amp; &#NN; &#xNN;), hex of the UTF-8 bytes

Not covered (said in the README's security section): other encodings or ciphers (ROT13,
base32, compression, encryption), a value split across separate messages or fields, partial
copies (a prefix or a few characters), and values shorter than MIN_CHARS (never masked: they
would mask ordinary words). A value with fewer than SEPARATED_MIN characters is not matched in
its separated form.
"""

from __future__ import annotations

import base64
import html
import re
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import quote, quote_plus

MASK = "[secret]"
MIN_CHARS = 3
SEPARATED_MIN = 5  # "a b c" would be found in ordinary prose
SEPARATORS = r"[\s\-_.,:;|/\\*+\u00b7\u2022]{1,3}"
B64_MIN = 6  # shortest stable base64 run worth matching


def _separated(value: str) -> str:
    return SEPARATORS.join(re.escape(c) for c in value if not c.isspace())


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


def _case_free_forms(value: str) -> set[str]:
    """Regex sources matched ignoring case."""
    forms = {re.escape(value), re.escape(value[::-1])}
    if len(value) >= SEPARATED_MIN:
        forms |= {_separated(value), _separated(value[::-1])}
    for encoded in (
        quote(value, safe=""),
        quote_plus(value, safe=""),
        html.escape(value),
        "".join(f"&#{ord(c)};" for c in value),
        "".join(f"&#x{ord(c):x};" for c in value),
        value.encode("utf-8").hex(),
    ):
        if encoded != value:
            forms.add(re.escape(encoded))
    return forms


class SecretForms:
    """Finds and masks every value of `values` in the forms listed in the module docstring."""

    def __init__(self, values: Iterable[str], mask: str = MASK) -> None:
        self.mask_text = mask
        kept = sorted({v for v in values if len(v) >= MIN_CHARS}, key=len, reverse=True)
        self.values = tuple(kept)
        folded = sorted({f for v in kept for f in _case_free_forms(v)}, key=len, reverse=True)
        exact = sorted({re.escape(r) for v in kept for r in _b64_runs(v)}, key=len, reverse=True)
        self._folded = re.compile("|".join(folded), re.IGNORECASE) if folded else None
        self._exact = re.compile("|".join(exact)) if exact else None

    def __bool__(self) -> bool:
        return bool(self.values)

    def mask(self, text: str) -> str:
        if self._exact is not None:
            text = self._exact.sub(self.mask_text, text)
        if self._folded is not None:
            text = self._folded.sub(self.mask_text, text)
        return text

    def found(self, text: str) -> bool:
        return any(p is not None and p.search(text) for p in (self._exact, self._folded))

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
