"""Chromium network errors as words (workers/browser/runtime/net_errors.py)."""

from __future__ import annotations

from workers.browser.runtime.net_errors import cause, plain

SOCKS = (
    "Page.goto: net::ERR_SOCKS_CONNECTION_FAILED at http://10.9.8.7/\n"
    'Call log:\n  - navigating to "http://10.9.8.7/", waiting until "domcontentloaded"\n'
)


def test_socks_failure_is_said_plainly_and_kept_raw_for_operators() -> None:
    said = plain(SOCKS)
    assert "ERR_" not in said and "Call log" not in said and "navigating" not in said
    assert "could not be reached" in said
    assert cause(SOCKS) == "net::ERR_SOCKS_CONNECTION_FAILED at http://10.9.8.7/"


def test_timeouts_certificates_and_unknown_codes() -> None:
    assert plain("Page.goto: Timeout 30000ms exceeded.\nCall log:\n - x") == (
        "the page did not load within 30 s"
    )
    assert "certificate" in plain("net::ERR_CERT_AUTHORITY_INVALID at https://a/")
    assert plain("net::ERR_SOMETHING_NEW at http://a/") == "something new"
    assert plain("ERR_BLOCKED_BY_CLIENT") == "blocked by the URL policy"
    assert plain(None) == "it failed"
