"""Security enforced in code, not by the model (seed 003 §8.4.1-8.4.2): domain allowlisting.

The browser pool refuses requests to hosts outside a task's allowed domains, but a redirect
hop or a script on an allowed page can still land the tab elsewhere; the loop checks where
the page is after every action and before every observation, and leads it back.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from app.urlpolicy import domain_allowed

NEUTRAL_PAGE = "about:blank"


def off_allowlist(url: str, allowed_domains: Sequence[str]) -> str | None:
    """Why this page may not be shown to the model, or None (no allowlist: all allowed)."""
    if not allowed_domains or url == NEUTRAL_PAGE:
        return None
    host = urlsplit(url).hostname or ""
    if domain_allowed(host, allowed_domains):
        return None
    return f"{host or url} is outside the task's allowed domains ({', '.join(allowed_domains)})"


class DomainGuard:
    """Remembers the last allowed page, so the tab can be led back there."""

    def __init__(self, allowed_domains: Sequence[str]) -> None:
        self.allowed_domains = tuple(allowed_domains)
        self.last_allowed = NEUTRAL_PAGE

    def check(self, url: str) -> str | None:
        reason = off_allowlist(url, self.allowed_domains)
        if reason is None:
            self.last_allowed = url
        return reason
