"""Every form of a secret that app/secret_forms.py claims to cover is masked; text that is not
one of them is left alone (hardening issue, item 2)."""

from __future__ import annotations

import base64
import codecs
import html
import json
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


# issue 32 item 3: the encodings browsers and page scripts produce, on a value with the
# characters the encoders treat differently (! ' ( ) * ~ @ and a space)
BROWSER_VALUE = "Vault!Canary@5150*(x)'~ z/\\\""
BROWSER_FORMS = SecretForms([BROWSER_VALUE, BROWSER_VALUE + "\u00e9"])


B64_VALUE = "Vault?Canary>5150~x"
B64 = base64.b64encode(B64_VALUE.encode()).decode()  # VmF1bHQ/Q2FuYXJ5PjUxNTB+eA==


def js_escape(text: str) -> str:
    """JavaScript's escape(): A-Z a-z 0-9 @*_+-./ kept, %XX below 256, else %uXXXX for each
    UTF-16 unit."""
    out = []
    for c in text:
        if c.isascii() and (c.isalnum() or c in "@*_+-./"):
            out.append(c)
        elif ord(c) < 256:
            out.append(f"%{ord(c):02X}")
        else:
            data = c.encode("utf-16-be")
            out += [f"%u{data[i : i + 2].hex().upper()}" for i in range(0, len(data), 2)]
    return "".join(out)


def codes(sep: str, fmt: str = "{}") -> str:
    return sep.join(fmt.format(ord(c)) for c in BROWSER_VALUE)


BROWSER_COVERED = {
    # JavaScript encodeURIComponent leaves A-Z a-z 0-9 - _ . ! ~ * ' ( ) unescaped
    "encodeURIComponent": quote(BROWSER_VALUE, safe="-_.!~*'()"),
    "encodeURI": quote(BROWSER_VALUE, safe="-_.!~*'();/?:@&=+$,#"),
    # WHATWG application/x-www-form-urlencoded: * - . _ kept, space as +
    "form urlencoded (a GET form's URL)": quote_plus(BROWSER_VALUE, safe="*-._"),
    "Python quote": quote(BROWSER_VALUE, safe=""),
    "spaced hex": " ".join(f"{b:02x}" for b in BROWSER_VALUE.encode()),
    "0x list": ", ".join(f"0x{b:02X}" for b in BROWSER_VALUE.encode()),
    "\\x escapes": "".join(f"\\x{b:02x}" for b in BROWSER_VALUE.encode()),
    "\\u escapes": "".join(f"\\u{ord(c):04x}" for c in BROWSER_VALUE),
    "char codes, commas": codes(","),
    "char codes, comma and space": codes(", "),
    "char codes, spaces": codes(" "),
    "zero-padded entities": codes("", "&#{:04d};"),
    "zero-padded hex entities": "".join(f"&#x{ord(c):04x};" for c in BROWSER_VALUE),
    "entities without ;": codes("", "&#{}"),
    "HTML escaped": html.escape(BROWSER_VALUE),
    "JSON string": json.dumps(BROWSER_VALUE)[1:-1],
    "JSON string, ASCII only": json.dumps(BROWSER_VALUE + "\u00e9")[1:-1],
    "zero-width spaces": "\u200b".join(BROWSER_VALUE),
    "zero-width joiners": "\u200d".join(BROWSER_VALUE),
    "word joiners and soft hyphens": "\u2060\u00ad".join(BROWSER_VALUE),
    "4 separators": " -- ".join(BROWSER_VALUE.replace(" ", "")),
    "first half": BROWSER_VALUE[: len(BROWSER_VALUE) // 2],
    "second half": BROWSER_VALUE[len(BROWSER_VALUE) // 2 :],
    "reversed, form urlencoded": quote_plus(BROWSER_VALUE[::-1], safe="*-._"),
    # issue 32, second stop: encodings nested the way pages and browsers nest them
    "URL-encoded twice (a URL inside a URL)": quote(quote(BROWSER_VALUE, safe=""), safe=""),
    "JSON string, URL-encoded": quote(json.dumps(BROWSER_VALUE)[1:-1], safe=""),
    "JSON string with \\u escapes, URL-encoded": quote(
        json.dumps(BROWSER_VALUE + "\u00e9")[1:-1], safe=""
    ),
    "form urlencoded on a Latin-1 page": quote_plus(
        BROWSER_VALUE + "\u00e9", safe="*-._", encoding="latin-1"
    ),
    "JavaScript escape()": js_escape(BROWSER_VALUE + "\u00e9"),
}


@pytest.mark.parametrize("name", sorted(BROWSER_COVERED))
def test_each_browser_encoding_is_masked(name: str) -> None:
    text = f"echo=<{BROWSER_COVERED[name]}>"
    masked = BROWSER_FORMS.mask(text)
    assert BROWSER_FORMS.found(text)
    assert masked == f"echo=<{MASK}>", masked


@pytest.mark.parametrize(
    "form",
    [
        quote(B64, safe=""),  # a query value: %2F %2B %3D
        quote_plus(B64, safe="*-._"),  # a form body
        quote(quote(B64, safe=""), safe=""),  # in a URL inside a URL: %252F
        B64.replace("+", "-").replace("/", "_"),  # URL-safe alphabet
    ],
)
def test_base64_with_its_url_encoded_characters_is_masked(form: str) -> None:
    forms = SecretForms([B64_VALUE])
    assert forms.mask(f"t={form}&x=1") == f"t={MASK}&x=1", forms.mask(form)


@pytest.mark.parametrize(
    "form",
    [
        json.dumps("Key\U0001f600Smile-99")[1:-1],  # JSON: a surrogate pair
        quote(json.dumps("Key\U0001f600Smile-99")[1:-1], safe=""),  # the same, URL-encoded
        js_escape("Key\U0001f600Smile-99"),  # %uD83D%uDE00
        "Key\\ud83d\\ude00Smile-99",
    ],
)
def test_a_character_outside_the_bmp_is_masked_as_a_surrogate_pair(form: str) -> None:
    forms = SecretForms(["Key\U0001f600Smile-99"])
    assert forms.mask(f"echo=<{form}>") == f"echo=<{MASK}>", forms.mask(form)


def test_a_get_forms_query_value_is_masked_in_the_url() -> None:
    url = "https://x.test/s?user=bob&pw=" + quote_plus(BROWSER_VALUE, safe="*-._") + "&go=1"
    assert BROWSER_FORMS.mask(url) == f"https://x.test/s?user=bob&pw={MASK}&go=1"


@pytest.mark.parametrize(
    "text",
    [
        "-----".join(VALUE),  # 5 separators: more than the 4 covered
        VALUE[:5] + " ... " + VALUE[-5:],  # a prefix and a suffix: shorter than a half
        ",".join(str(ord(c)) for c in "Hunter3-CANARZ-77"),  # another value's codes
        "72 117 110",  # three of its char codes
    ],
)
def test_near_misses_are_left_alone(text: str) -> None:
    assert FORMS.mask(text) == text and not FORMS.found(text)


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
