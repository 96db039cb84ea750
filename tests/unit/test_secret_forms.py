"""Every form of a secret that app/secret_forms.py claims to cover is masked; text that is not
one of them is left alone (hardening issue, item 2)."""

from __future__ import annotations

import base64
import codecs
import html
from urllib.parse import quote, quote_plus

import pytest

from app.logredact import SecretRegistry
from app.secret_forms import MASK, SecretForms
from app.secrets import redact

VALUE = "Hunter2-CANARY-77"
FORMS = SecretForms([VALUE])


def b64_inside(prefix: str, suffix: str, urlsafe: bool = False) -> str:
    data = (prefix + VALUE + suffix).encode()
    return (base64.urlsafe_b64encode if urlsafe else base64.b64encode)(data).decode()


COVERED = {
    "exact": VALUE,
    "lower": VALUE.lower(),
    "upper": VALUE.upper(),
    "swapcase": VALUE.swapcase(),
    "reversed": VALUE[::-1],
    "spaced": " ".join(VALUE),
    "joined with dashes": "-".join(VALUE),
    "dotted reversed": ".".join(VALUE[::-1]),
    "base64": base64.b64encode(VALUE.encode()).decode(),
    "base64 unpadded": base64.b64encode(VALUE.encode()).decode().rstrip("="),
    "base64 in a longer text, offset 1": b64_inside("a", "xyz"),
    "base64 in a longer text, offset 2": b64_inside("ab", "x"),
    "base64 in a longer text, offset 3": b64_inside("abc", ""),
    "URL-safe base64 in a longer text": b64_inside("user:", "?", urlsafe=True),
    "URL encoded": quote(VALUE, safe=""),
    "form encoded": quote_plus(VALUE + " x"),
    "HTML numeric entities": "".join(f"&#{ord(c)};" for c in VALUE),
    "HTML hex entities": "".join(f"&#x{ord(c):x};" for c in VALUE),
    "hex": VALUE.encode().hex(),
}


@pytest.mark.parametrize("name", sorted(COVERED))
def test_each_covered_form_is_masked(name: str) -> None:
    text = f"the page says <{COVERED[name]}> today"
    masked = FORMS.mask(text)
    assert FORMS.found(text)
    assert MASK in masked, masked
    leftover = masked.replace(MASK, "")
    assert "CANARY" not in leftover.upper() and "YRANAC" not in leftover.upper(), masked


def test_a_value_with_html_specials_is_masked_when_escaped() -> None:
    value = 'p<a>&"ss'
    forms = SecretForms([value])
    assert forms.mask(html.escape(value)) == MASK


@pytest.mark.parametrize(
    "text",
    [
        "Hunter and the canary, 77 of them",  # the words, not the value
        "H-u-n-t",  # a short part of the separated form
        codecs.encode(VALUE, "rot13"),  # not covered, and the README says so
        "aGVsbG8gd29ybGQ=",  # unrelated base64
    ],
)
def test_text_that_is_not_a_covered_form_is_left_alone(text: str) -> None:
    assert FORMS.mask(text) == text and not FORMS.found(text)


def test_short_values_are_never_masked() -> None:
    assert SecretForms(["ab"]).mask("ab cab") == "ab cab"


def test_redact_walks_json_and_the_log_registry_uses_the_same_forms() -> None:
    event = {"reason": f"field now {VALUE[::-1]!r}", "list": [base64.b64encode(VALUE.encode())]}
    clean = redact({**event, "list": [x.decode() for x in event["list"]]}, (VALUE,))
    assert clean == {"reason": "field now '[secret]'", "list": ["[secret]"]}
    registry = SecretRegistry()
    owner = type("Owner", (), {})()
    registry.register(owner, [VALUE])
    assert registry.redact(f"echo {' '.join(VALUE)}") == "echo ***"
