"""Security enforced in code, not by the model (seed 003 §8.4.1-8.4.2): domain allowlisting,
and the direct-navigation guards of seed 000 §6.5 (domain pinning plus a minimal OAuth/CDN
safe list, no pivot to a general search engine, no re-navigation to a URL that just served a
challenge, a navigate back to a visited URL flagged as a regression).

The browser pool refuses requests to hosts outside a task's allowed domains, but a redirect
hop or a script on an allowed page can still land the tab elsewhere; the loop checks where
the page is after every action and before every observation, and leads it back.
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import urlsplit

from app.urlpolicy import domain_allowed
from workers.agent.protocols import ToolResult
from workers.agent.toolerrors import ToolError

NEUTRAL_PAGE = "about:blank"
# seed 000 §6.5: "a minimal OAuth/CDN safe-list" next to the pinned domains
SAFE_LIST = (
    "accounts.google.com",
    "login.microsoftonline.com",
    "appleid.apple.com",
    "cdn.jsdelivr.net",
    "cdnjs.cloudflare.com",
    "unpkg.com",
)
# general search engines: a pivot to one is refused unless the task is pinned to it
SEARCH_ENGINES = (
    "google.com",
    "bing.com",
    "duckduckgo.com",
    "search.yahoo.com",
    "baidu.com",
    "yandex.com",
    "yandex.ru",
)


def off_allowlist(url: str, allowed_domains: Sequence[str]) -> str | None:
    """Why this page may not be shown to the model, or None (no allowlist: all allowed)."""
    if not allowed_domains or url == NEUTRAL_PAGE:
        return None
    host = urlsplit(url).hostname or ""
    if domain_allowed(host, allowed_domains) or domain_allowed(host, SAFE_LIST):
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


def _page_key(url: str) -> str:
    """A URL without its fragment: `/a#top` is the page `/a`."""
    return url.split("#", 1)[0]


class NavigationGuard:
    """Seed 000 §6.5 fences around `navigate`; pure, the loop feeds it every hop."""

    def __init__(self, allowed_domains: Sequence[str], start_url: str | None) -> None:
        start_host = urlsplit(start_url or "").hostname or ""
        self.pinned = tuple(allowed_domains) + ((start_host,) if start_host else ())
        self.visited: set[str] = set()
        self.challenged: set[str] = set()

    def before_navigate(self, url: str) -> ToolResult | None:
        """A refusal for a `navigate` to url, or None when it may go ahead."""
        host = urlsplit(url).hostname or ""
        if domain_allowed(host, SEARCH_ENGINES) and not domain_allowed(host, self.pinned):
            return ToolResult(
                success=False,
                error=ToolError.search_engine_refused,
                reason=f"{host} is a general search engine; the task is pinned to its own site",
            )
        if _page_key(url) in self.challenged:
            return ToolResult(
                success=False,
                error=ToolError.challenge_pending,
                reason=f"{url} just served a challenge page; going there again re-triggers it",
            )
        return None

    def regression(self, url: str) -> bool:
        """True when a navigate goes back to a page this run already visited."""
        return _page_key(url) in self.visited

    def after_hop(self, url: str, *, challenged: bool) -> None:
        key = _page_key(url)
        self.visited.add(key)
        if challenged:
            self.challenged.add(key)
        else:
            self.challenged.discard(key)
