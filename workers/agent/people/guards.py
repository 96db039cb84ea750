"""Security enforced in code, not by the model (seed 003 §8.4.1-8.4.2): domain allowlisting,
and the direct-navigation guards of seed 000 §6.5 (domain pinning plus a minimal OAuth/CDN
safe list, no pivot to a general search engine, no re-navigation to a URL that just served a
challenge, a navigate back to a visited URL flagged as a regression, and "the double edge":
a navigate to a guessed URL — one whose query parameters carry state the run has not seen —
only when it matches the site's URL grammar, learned by earlier runs (`url_templates`,
workers/agent/memory/site_memory.py) or read off a URL this run reached through the page).

The browser pool refuses requests to hosts outside a task's allowed domains, but a redirect
hop or a script on an allowed page can still land the tab elsewhere; the loop checks where
the page is after every action and before every observation, and leads it back.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from app.urlpolicy import domain_allowed
from workers.agent.memory.ledger import domain_of
from workers.agent.memory.site_memory import SiteMemory, UrlTemplate, shape_of
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


def same_page(a: str, b: str) -> bool:
    """Two URLs of one page (fragments aside): opening the current page again is a reload."""
    return _page_key(a) == _page_key(b)


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


class UrlGrammar:
    """Seed 000 §6.5: direct navigation is reliable "after the page's URL grammar is known
    (read off an earlier in-UI interaction) rather than guessed cold". A navigate whose URL
    has query parameters is a guess unless that URL is known (the start URL, a URL in the
    task, a URL this run reached) or its shape matches a known template of its host."""

    def __init__(self, start_url: str | None, instruction: str = "") -> None:
        self.known: set[str] = {_page_key(u) for u in _URLS.findall(instruction)}
        self.templates: dict[str, list[UrlTemplate]] = {}
        if start_url:
            self.reached(start_url)

    def learn(self, site: SiteMemory) -> None:
        """The templates earlier runs learned on a domain."""
        self.templates.setdefault(site.domain, []).extend(site.templates)

    def reached(self, url: str) -> None:
        """A URL the page actually got to: known, and its shape is grammar from now on."""
        self.known.add(_page_key(url))
        shape = shape_of(url)
        if shape is not None:
            self.templates.setdefault(domain_of(url), []).append(shape)

    def refusal(self, url: str) -> ToolResult | None:
        parts = urlsplit(url)
        if not parts.query or _page_key(url) in self.known:
            return None
        host = domain_of(url)
        templates = self.templates.get(host, [])
        if any(t.matches(url) for t in templates):
            return None
        known = ", ".join(dict.fromkeys(t.pattern for t in templates)) or "none yet"
        return ToolResult(
            success=False,
            error=ToolError.guessed_url,
            reason=f"{url} is a guessed URL: its query parameters match no URL pattern known "
            f"for {host} (known: {known}); direct navigation is allowed only on a known "
            "pattern. Reach that state through the page first (links, search box, filters).",
        )


_URLS = re.compile(r"https?://[^\s<>\"')\]]+")
