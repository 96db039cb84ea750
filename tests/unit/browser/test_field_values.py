"""Read-back of browser-normalised values (workers/browser/act/field_values.py)."""

from __future__ import annotations

import pytest

from workers.browser.act.field_values import native_form, parse_date, same_value


@pytest.mark.parametrize(
    ("kind", "text", "native"),
    [
        ("date", "05/20/2010", "2010-05-20"),
        ("date", "5/2/2010", "2010-05-02"),
        ("date", "20.05.2010", "2010-05-20"),  # the first number cannot be a month
        ("date", "2010-05-20", "2010-05-20"),
        ("date", "May 20, 2010", "2010-05-20"),
        ("date", "20 May 2010", "2010-05-20"),
        ("date", "02/30/2010", None),
        ("date", "tomorrow", None),
        ("time", "3:45 PM", "15:45"),
        ("time", "12:05 am", "00:05"),
        ("time", "7pm", "19:00"),
        ("time", "25:00", None),
        ("datetime-local", "05/20/2010 3:45 PM", "2010-05-20T15:45"),
        ("datetime-local", "2010-05-20T15:45", "2010-05-20T15:45"),
        ("month", "05/2010", "2010-05"),
        ("week", "2010-W7", "2010-W07"),
        ("text", "05/20/2010", None),
        ("number", "1,000", "1000"),  # plain input's fill() refuses grouped digits
        ("number", "-12 500.5", "-12500.5"),
        ("number", "42", None),  # typed as it is
        ("number", "1,00", None),  # no grouping: left to the read-back to judge
    ],
)
def test_native_form(kind: str, text: str, native: str | None) -> None:
    assert native_form(kind, text) == native


def test_same_value_is_semantic_for_normalising_inputs_only() -> None:
    assert same_value("date", "05/20/2010", "2010-05-20")
    assert not same_value("date", "05/21/2010", "2010-05-20")
    assert same_value("number", "1,000", "1000") and same_value("number", "3.50", "3.5")
    assert not same_value("number", "12", "1")
    assert same_value("color", "#FF0000", "#ff0000")
    assert same_value("email", "Bob@Example.com", "bob@example.com")
    assert same_value("tel", "5551234567", "(555) 123-4567")  # masks add separators
    assert not same_value("text", "05/20/2010", "2010-05-20")  # a text field kept its text
    assert not same_value("text", "abcdef", "abc")
    assert parse_date("13/13/2010") is None
