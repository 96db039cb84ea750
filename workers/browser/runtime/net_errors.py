"""Chromium's network errors in words a person reads (issue 23 §5).

Playwright's message for a failed navigation is `net::ERR_SOCKS_CONNECTION_FAILED at
http://...` followed by a "Call log:" of its internal steps. Users (the run viewer, the task's
`error_detail`) and the model see `plain(...)`; the original first line stays in the
operator-facing `cause` of the action event (workers/agent/loop/step_events.py).
"""

from __future__ import annotations

import re

NET_CODE = re.compile(r"net::(ERR_[A-Z0-9_]+)")
TIMEOUT = re.compile(r"Timeout (\d+)ms exceeded")
CAUSE_CHARS = 300

# Chromium net error code -> what happened, said plainly. The SOCKS and proxy codes come
# from the egress proxy (runtime/egress.py) when the site cannot be reached through it.
WORDS = {
    "ERR_NAME_NOT_RESOLVED": "the address does not exist (DNS lookup failed)",
    "ERR_NAME_RESOLUTION_FAILED": "the address could not be looked up (DNS failed)",
    "ERR_CONNECTION_REFUSED": "the site refused the connection (nothing listens there)",
    "ERR_SOCKS_CONNECTION_FAILED": "the site could not be reached (connection refused or "
    "not allowed by the network policy)",
    "ERR_SOCKS_CONNECTION_HOST_UNREACHABLE": "the site could not be reached",
    "ERR_PROXY_CONNECTION_FAILED": "the site could not be reached through the proxy",
    "ERR_TUNNEL_CONNECTION_FAILED": "the site could not be reached through the proxy",
    "ERR_CONNECTION_RESET": "the connection was reset by the site",
    "ERR_CONNECTION_CLOSED": "the site closed the connection without an answer",
    "ERR_EMPTY_RESPONSE": "the site closed the connection without an answer",
    "ERR_CONNECTION_TIMED_OUT": "the site did not answer in time",
    "ERR_TIMED_OUT": "the site did not answer in time",
    "ERR_ADDRESS_UNREACHABLE": "the site's address is unreachable from here",
    "ERR_INTERNET_DISCONNECTED": "this machine has no network connection",
    "ERR_BLOCKED_BY_CLIENT": "blocked by the URL policy",
    "ERR_BLOCKED_BY_RESPONSE": "the site refused to be shown in a browser tab",
    "ERR_TOO_MANY_REDIRECTS": "the site redirects in a loop",
    "ERR_ABORTED": "the page load was interrupted (another navigation or a download)",
    "ERR_SSL_PROTOCOL_ERROR": "a secure (HTTPS) connection could not be made",
    "ERR_UNSAFE_PORT": "the browser does not open that port",
    "ERR_INVALID_URL": "the address is not a valid URL",
}


def net_code(message: str | None) -> str | None:
    """`ERR_...` in a Playwright or request-failure message, if any."""
    found = NET_CODE.search(message or "") or re.match(r"(ERR_[A-Z0-9_]+)", message or "")
    return found.group(1) if found else None


def plain(message: str | None) -> str:
    """The failure as a person would say it: no net:: codes, no Playwright call log."""
    text = message or ""
    code = net_code(text)
    if code is not None:
        if code in WORDS:
            return WORDS[code]
        if code.startswith("ERR_CERT_"):
            return "the site's HTTPS certificate is not valid"
        return code.removeprefix("ERR_").replace("_", " ").lower()
    timeout = TIMEOUT.search(text)
    if timeout is not None:
        return f"the page did not load within {int(timeout.group(1)) // 1000} s"
    first = first_line(text)
    return first or "it failed"


def first_line(message: str | None) -> str:
    """The message's first line without Playwright's `Page.goto:` prefix or call log."""
    head = (message or "").split("Call log:", 1)[0].strip().splitlines()
    line = head[0] if head else ""
    return re.sub(r"^[A-Za-z]+\.[A-Za-z_]+: ", "", line).strip()


def cause(message: str | None) -> str:
    """What operators keep: the first line as Chromium/Playwright said it, cut short."""
    return first_line(message)[:CAUSE_CHARS]
