"""Deterministic site exploration (seed 001 §2.3, App. A.2): the traversal and its bookkeeping.

ExplorePage (Algorithm 3) visits one page at a time, depth-first from the start URL:
it deduplicates against the URLs already in P, loads the page, registers its PageMem and
either treats it as a known-shape duplicate (its section structure matches a template in
T: not iterated) or, when it holds a list or was reached from a list item, adds it to T;
IteratePage then clicks its elements in document order (ExploreElement, Algorithm 4),
skipping elements already in the site's element set E, and recurses into the new URLs at
depth - 1. Of a repeated list only one item's elements are clicked; the other items' links
are known members of the same template. ExploreElement applies the static skip filter
(ShouldSkip: off-site, authentication, tel:/mailto:/print, destructive modifiers), clicks
from a restored page (the browser reloads the pre-click URL), and records what happened:
a navigation (a same-site URL becomes a stub), revealed elements (the control's dropdown
items, explored recursively), or nothing. Limits (App. B): elements per page, pages per
site, depth, a wall-clock timeout; on any of them the partial WebsiteMem is kept as is.

No model is called: page summaries are the page's own first heading and text. The browser
side is `ExplorationBrowser` (workers/browser/act/explore.py implements it over Playwright).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol
from urllib.parse import urlsplit, urlunsplit

from app.contracts import (
    ElementEffect,
    ElementRecord,
    PageRecord,
    PageTemplate,
    SectionOutline,
    SkippedElement,
    WebsiteMem,
)
from app.urlpolicy import domain_allowed, domain_of
from workers.agent.memory.site_memory import UrlTemplate, learn_templates

# App. B figures are 75 elements, 500 pages, depth 2, 12 h; the service's defaults are smaller
DEFAULT_MAX_DEPTH, DEFAULT_MAX_PAGES, DEFAULT_MAX_ELEMENTS = 2, 50, 75
MAX_REVEAL_DEPTH = 2  # a revealed item may reveal once more (a submenu), not deeper
MIN_REPEATED = 3  # links of one URL template (with a slot) from this many on = a list

_AUTH = re.compile(
    r"\b(?:log ?in|log ?out|log ?off|sign ?in|sign ?out|sign ?up|sign ?off|register|"
    r"create (?:an )?account|forgot(?:ten)? password|reset password)\b",
    re.I,
)
_AUTH_PATH = re.compile(
    r"(?:^|[/_.-])(?:login|logout|logoff|signin|signout|signup|sign-in|sign-out|sign-up|"
    r"register|auth|oauth|sso|session|account/(?:login|logout))(?:$|[/_.?-])",
    re.I,
)
_DESTRUCTIVE = re.compile(
    r"\b(?:delete|remove|submit|save|buy|pay|purchase|checkout|check out|order|place order|"
    r"confirm|send|post|publish|add to (?:cart|basket|bag)|transfer|unsubscribe|subscribe|"
    r"deactivate|close account|empty|destroy|discard|archive|cancel|reset|book now|donate)\b",
    re.I,
)
_PRINT = re.compile(r"\bprint\b", re.I)
_SCHEMES_SKIPPED = ("tel:", "mailto:", "sms:", "javascript:", "data:", "file:", "ftp:")
FIELD_ROLES = frozenset(
    {"textbox", "searchbox", "combobox", "listbox", "slider", "spinbutton", "option"}
)


@dataclass(frozen=True)
class Control:
    """An interactive element of a page as the exploration sees it."""

    role: str
    name: str
    href: str = ""  # absolute link target ('' when not a link)
    submits: bool = False  # a form submit button (type=submit, input image)
    download: bool = False
    list_id: str | None = None  # repeated-sibling group (snapshot) and the item number
    item: int | None = None

    @property
    def label(self) -> str:
        return f'{self.role} "{self.name}"' if self.name else self.role

    @property
    def key(self) -> str:
        """Identity across the site's pages (E): the same nav link on every page is one."""
        return "\u0001".join((self.role, self.name.strip().lower(), _strip_fragment(self.href)))


@dataclass(frozen=True)
class PageView:
    """A loaded page: what the PageMem shows of it, and its controls in document order."""

    url: str
    title: str
    summary: str
    sections: tuple[SectionOutline, ...]
    signature: str  # digest of the section structure (template matching)
    has_list: bool
    controls: tuple[Control, ...]


@dataclass(frozen=True)
class ClickOutcome:
    url: str  # where the browser was after the click ('' on failure)
    navigated: bool
    revealed: tuple[Control, ...] = ()
    error: str | None = None


class ExplorationBrowser(Protocol):
    """The browser side of the traversal."""

    async def load(self, url: str) -> PageView | None:
        """Open `url` in the explored tab; None when it did not load (or left the site)."""
        ...

    async def click(self, url: str, path: Sequence[Control]) -> ClickOutcome:
        """Restore `url` (reload), click each control of `path` in turn (all but the last
        reveal the next) and report what the last click did."""
        ...

    async def url_reason(self, url: str) -> str | None:
        """Why the URL policy (and allowed_domains) refuse `url`, or None."""
        ...


@dataclass(frozen=True)
class ExploreLimits:
    max_depth: int = DEFAULT_MAX_DEPTH
    max_pages: int = DEFAULT_MAX_PAGES
    max_elements_per_page: int = DEFAULT_MAX_ELEMENTS
    timeout_s: float = 300.0


@dataclass(frozen=True)
class SiteScope:
    """Which URLs belong to the explored site: the start host (and its subdomains), inside
    `allowed_domains` when the request named some."""

    host: str
    allowed_domains: tuple[str, ...] = ()

    def on_site(self, url: str) -> bool:
        host = domain_of(url)
        if not host or not domain_allowed(host, (self.host,)):
            return False
        return not self.allowed_domains or domain_allowed(host, self.allowed_domains)


def _strip_fragment(url: str) -> str:
    if not url:
        return ""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, parts.path or "/", parts.query, ""))


def normalize(url: str) -> str:
    """A page's identity in P: the URL without its fragment."""
    return _strip_fragment(url)


def skip_reason(control: Control, scope: SiteScope) -> str | None:
    """ShouldSkip (seed 001 App. A.2): None when the control may be clicked."""
    href = control.href.strip()
    lowered = href.lower()
    if lowered.startswith(_SCHEMES_SKIPPED) or (href and "print(" in lowered):
        return "scheme"
    if _PRINT.search(control.name):
        return "scheme"
    if href and not scope.on_site(href):
        return "off_site"
    if _AUTH.search(control.name) or (href and _AUTH_PATH.search(urlsplit(href).path)):
        return "auth"
    if control.submits or _DESTRUCTIVE.search(control.name):
        return "destructive"
    if control.download:
        return "download"
    if control.role in FIELD_ROLES:
        return "form_field"  # typing targets: a click reveals nothing and enters nothing
    return None


def repeated_groups(controls: Sequence[Control]) -> dict[str, tuple[Control, ...]]:
    """Links whose targets share one URL template with a slot (a list of results: /item/1,
    /item/2, ...), by pattern, in document order; plus repeated-sibling lists of the
    snapshot whose items carry the same controls (same names: `Add to cart` per row)."""
    links = [c for c in controls if c.href and urlsplit(c.href).scheme in ("http", "https")]
    groups: dict[str, list[Control]] = {}
    hrefs = list(dict.fromkeys(normalize(c.href) for c in links))
    for template in learn_templates(hrefs):
        if None not in template.segments and not template.params:
            continue
        members = [c for c in links if _matches(template, c.href)]
        if len({normalize(c.href) for c in members}) >= MIN_REPEATED:
            groups[template.pattern] = members
    by_list: dict[str, dict[int, list[Control]]] = {}
    for c in controls:
        if c.list_id is not None and not c.href:
            by_list.setdefault(c.list_id, {}).setdefault(c.item or 0, []).append(c)
    for list_id, items in by_list.items():
        shapes = {tuple(c.label for c in item) for item in items.values()}
        if len(items) >= MIN_REPEATED and len(shapes) == 1:
            groups[f"list:{list_id}"] = [c for item in items.values() for c in item]
    return {k: tuple(v) for k, v in groups.items()}


def _matches(template: UrlTemplate, url: str) -> bool:
    if not template.matches(url):
        return False
    return set(template.params) <= set(_params(url))


def _params(url: str) -> list[str]:
    return [p.split("=", 1)[0] for p in urlsplit(url).query.split("&") if p]


def url_pattern(urls: Sequence[str]) -> str:
    """The URL template of pages of one shape: the learned pattern when the URLs vary in a
    slot, else the first URL's path."""
    learned = [t for t in learn_templates(list(dict.fromkeys(urls))) if all(map(t.matches, urls))]
    if learned:
        return learned[0].pattern
    return urlsplit(urls[0]).path or "/"


@dataclass
class _Stub:
    url: str
    via: str | None
    list_item: bool = False
    template: str | None = None  # pattern of the repeated group the link belonged to


@dataclass
class Explorer:
    """The state of one site's exploration: P (pages), T (templates), E (elements seen)."""

    browser: ExplorationBrowser
    scope: SiteScope
    limits: ExploreLimits = ExploreLimits()
    clock: Callable[[], float] = time.monotonic
    progress: Callable[[Explorer], None] | None = None
    pages: dict[str, PageRecord] = field(default_factory=dict)
    templates: list[PageTemplate] = field(default_factory=list)
    seen: set[str] = field(default_factory=set)  # E: element keys clicked or skipped
    elements: list[ElementRecord] = field(default_factory=list)
    skipped: dict[str, SkippedElement] = field(default_factory=dict)
    clicks: int = 0
    stopped: str = ""  # which limit ended the exploration early ('' = it ran out of pages)
    _deadline: float = 0.0
    _siblings: dict[str, tuple[str, ...]] = field(default_factory=dict)  # pattern -> hrefs

    async def run(self, start_url: str) -> WebsiteMem:
        self._deadline = self.clock() + self.limits.timeout_s
        await self._explore_page(_Stub(normalize(start_url), None), self.limits.max_depth, 0)
        return self.result(start_url)

    def result(self, start_url: str) -> WebsiteMem:
        """The WebsiteMem so far (also the partial one after a timeout)."""
        pattern_of = {u: t.pattern for t in self.templates for u in t.urls}
        pages = [
            p.model_copy(update={"template": pattern_of.get(p.url)}) if p.template else p
            for p in self.pages.values()
        ]
        return WebsiteMem(
            domain=self.scope.host,
            start_url=start_url,
            pages=pages,
            templates=list(self.templates),
            elements=list(self.elements),
            skipped=list(self.skipped.values()),
            stats={
                "pages": len(self.pages),
                "templates": len(self.templates),
                "clicks": self.clicks,
                "skipped": len(self.skipped),
                "stopped": self.stopped or None,
            },
        )

    # -- limits -------------------------------------------------------------------------
    def _out_of_time(self) -> bool:
        if self.clock() >= self._deadline:
            self.stopped = self.stopped or "timeout"
        return bool(self.stopped) and self.stopped != "max_pages"

    def _pages_full(self) -> bool:
        if len(self.pages) >= self.limits.max_pages:
            self.stopped = self.stopped or "max_pages"
            return True
        return False

    # -- ExplorePage (Algorithm 3) --------------------------------------------------------
    async def _explore_page(self, stub: _Stub, depth: int, layer: int) -> None:
        if stub.url in self.pages or self._pages_full() or self._out_of_time():
            return
        if await self.browser.url_reason(stub.url) is not None:
            return
        view = await self.browser.load(stub.url)
        if view is None:
            return
        url = normalize(view.url)
        if url != stub.url and url in self.pages:  # redirected to a page already in P
            return
        record = PageRecord(
            url=url,
            title=view.title,
            depth=layer,
            summary=view.summary,
            sections=list(view.sections),
            via=stub.via,
        )
        known = self._matching_template(view)
        if known is not None:  # a known shape: further iteration would re-cover its elements
            known.urls = list(dict.fromkeys([*known.urls, url]))
            known.pattern = url_pattern(known.urls)
            self.pages[url] = record.model_copy(update={"template": known.pattern})
            self._report()
            return
        template = None
        if view.has_list or stub.list_item or repeated_groups(view.controls):
            template = self._new_template(view, url, stub)
        iterate = depth > 0
        self.pages[url] = record.model_copy(
            update={"template": template.pattern if template else None, "iterated": iterate}
        )
        self._report()
        if not iterate:
            return
        for child in await self._iterate_page(view, url):
            await self._explore_page(child, depth - 1, layer + 1)

    def _matching_template(self, view: PageView) -> PageTemplate | None:
        return next((t for t in self.templates if t.signature == view.signature), None)

    def _new_template(self, view: PageView, url: str, stub: _Stub) -> PageTemplate:
        urls = [url, *self._siblings.get(stub.template or "", ())] if stub.list_item else [url]
        urls = list(dict.fromkeys(urls))
        template = PageTemplate(
            pattern=url_pattern(urls),
            signature=view.signature,
            kind="item" if stub.list_item else "list",
            urls=urls,
        )
        self.templates.append(template)
        return template

    # -- IteratePage / ExploreElement (Algorithm 4) ----------------------------------------
    async def _iterate_page(self, view: PageView, url: str) -> list[_Stub]:
        groups = repeated_groups(view.controls)
        member_of: dict[str, str] = {}
        for pattern, members in groups.items():
            if pattern.startswith("list:"):
                first = members[0].item
                for c in members:
                    if c.item != first:
                        member_of[c.key] = pattern
                continue
            hrefs = tuple(dict.fromkeys(normalize(c.href) for c in members))
            self._siblings[pattern] = hrefs
            for c in members:  # one item is clicked; the others are members of its template
                if normalize(c.href) != hrefs[0]:
                    member_of[c.key] = pattern
        stubs: list[_Stub] = []
        budget = [self.limits.max_elements_per_page]
        for control in view.controls:
            if budget[0] <= 0 or self._out_of_time():
                break
            if control.key in self.seen or control.key in member_of:
                continue
            group = next((p for p, ms in groups.items() if control in ms), None)
            stubs += await self._explore_element(url, (control,), budget, group)
        return stubs

    async def _explore_element(
        self, url: str, path: tuple[Control, ...], budget: list[int], group: str | None
    ) -> list[_Stub]:
        control = path[-1]
        self.seen.add(control.key)
        reason = skip_reason(control, self.scope)
        if reason is not None:
            self.skipped.setdefault(
                control.key,
                SkippedElement(
                    page=url, label=control.label, href=control.href or None, reason=reason
                ),
            )
            return []
        budget[0] -= 1
        self.clicks += 1
        outcome = await self.browser.click(url, path)
        parent = path[-2].label if len(path) > 1 else None
        if outcome.error is not None:
            self._record(url, control, ElementEffect.failed, parent=parent)
            return []
        if outcome.navigated:
            target = normalize(outcome.url)
            self._record(url, control, ElementEffect.navigates, target=target, parent=parent)
            if not self.scope.on_site(target) or target in self.pages or target == url:
                return []
            stub = _Stub(target, control.label, list_item=group is not None, template=group)
            return [stub]
        revealed = tuple(c for c in outcome.revealed if c.key not in self.seen)
        if not revealed:
            self._record(url, control, ElementEffect.no_effect, parent=parent)
            return []
        self._record(
            url,
            control,
            ElementEffect.reveals,
            revealed=[c.label for c in outcome.revealed],
            parent=parent,
        )
        stubs: list[_Stub] = []
        if len(path) > MAX_REVEAL_DEPTH:
            return stubs
        for item in revealed:
            if budget[0] <= 0 or self._out_of_time():
                break
            if item.key not in self.seen:
                stubs += await self._explore_element(url, (*path, item), budget, None)
        return stubs

    def _record(
        self,
        url: str,
        control: Control,
        effect: ElementEffect,
        *,
        target: str | None = None,
        revealed: list[str] | None = None,
        parent: str | None = None,
    ) -> None:
        self.elements.append(
            ElementRecord(
                page=url,
                label=control.label,
                effect=effect,
                target=target,
                revealed=revealed or [],
                parent=parent,
            )
        )
        self._report()

    def _report(self) -> None:
        if self.progress is not None:
            self.progress(self)
