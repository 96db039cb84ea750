"""The sensitive-action rules on the corpus of bench/approval_corpus.py (issue 26 item 13):
every sensitive row needs a person; harmless controls whose verb names only a value of the
page (a colour, a direction, a digit) do not, and the known false positives stay few."""

from __future__ import annotations

from bench.approval_corpus import HARMLESS, SENSITIVE, flagged, table


def test_every_sensitive_control_needs_a_person() -> None:
    assert [r.label for r in SENSITIVE if not flagged(r)] == []


def test_value_buttons_with_risky_verbs_pass() -> None:
    passed = {r.label for r in HARMLESS if not flagged(r)}
    assert "colour button 'Send Red'" in passed
    assert "drawing tool 'Send to back'" in passed
    assert "digit pad 'Send 7'" in passed
    assert len(HARMLESS) - len(passed) <= 4, table()


def test_a_form_submission_is_never_passed_as_a_value() -> None:
    posted = next(r for r in SENSITIVE if r.label.startswith("submit 'Send Red'"))
    assert flagged(posted)


def test_in_page_share_and_reply_pass_and_posting_ones_do_not() -> None:
    shares = [r for r in HARMLESS + SENSITIVE if "Share" in r.label or "Reply" in r.label]
    assert len(shares) >= 8
    assert [r.label for r in shares if flagged(r) != r.sensitive] == []
