"""The exploration's bookkeeping (seed 001 App. A.2) over a scripted browser: skip filter,
repeated lists, element dedupe across pages, depth, templates and the limits."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from app.contracts import ElementEffect
from workers.agent.memory.exploration import (
    ClickOutcome,
    Control,
    ExploreLimits,
    Explorer,
    PageView,
    SiteScope,
    repeated_groups,
    skip_reason,
    url_pattern,
)

SITE = "https://shop.test"
SCOPE = SiteScope("shop.test")


def link(name: str, path: str) -> Control:
    return Control("link", name, href=path if ":" in path else SITE + path)


@pytest.mark.parametrize(
    ("control", "reason"),
    [
        (link("Partner", "https://other.test/"), "off_site"),
        (link("Log out", "/bye"), "auth"),
        (link("My account", "/account/login"), "auth"),
        (Control("button", "Sign in"), "auth"),
        (link("Call us", "tel:+4912345"), "scheme"),
        (link("Mail us", "mailto:a@shop.test"), "scheme"),
        (Control("button", "Print receipt"), "scheme"),
        (Control("button", "Delete account"), "destructive"),
        (Control("button", "Buy now"), "destructive"),
        (Control("button", "Go", submits=True), "destructive"),
        (Control("link", "Price list", href=SITE + "/p.pdf", download=True), "download"),
        (Control("textbox", "Search"), "form_field"),
        (link("Kettles", "/kettles"), None),
        (link("Blog", "https://blog.shop.test/"), None),  # a subdomain is on the site
        (Control("button", "Shop"), None),
    ],
)
def test_skip_filter(control: Control, reason: str | None) -> None:
    assert skip_reason(control, SCOPE) == reason


def test_allowed_domains_narrow_the_site() -> None:
    scope = SiteScope("shop.test", ("www.shop.test",))
    assert skip_reason(link("Blog", "https://blog.shop.test/"), scope) == "off_site"


def test_repeated_links_are_one_list_and_a_nav_is_not() -> None:
    nav = [link("Home", "/"), link("Kettles", "/kettles"), link("About", "/about")]
    items = [link(f"Kettle {i}", f"/item/{i}") for i in (7, 8, 9)]
    groups = repeated_groups([*nav, *items])
    assert list(groups) == ["/item/{}"] and groups["/item/{}"] == tuple(items)
    assert repeated_groups([*nav, *items[:2]]) == {}  # two links are not yet a list
    assert url_pattern([SITE + "/item/7", SITE + "/item/8"]) == "/item/{}"
    assert url_pattern([SITE + "/about"]) == "/about"


@dataclass
class ScriptedSite:
    """Pages by URL; clicks by (page, labels of the path) -> outcome."""

    pages: dict[str, PageView]
    clicks: dict[tuple[str, tuple[str, ...]], ClickOutcome] = field(default_factory=dict)
    done: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)
    loaded: list[str] = field(default_factory=list)

    async def load(self, url: str) -> PageView | None:
        self.loaded.append(url)
        return self.pages.get(url)

    async def click(self, url: str, path: Sequence[Control]) -> ClickOutcome:
        key = (url, tuple(c.label for c in path))
        self.done.append(key)
        return self.clicks.get(key, ClickOutcome(url, False))

    async def url_reason(self, url: str) -> str | None:
        return "blocked" if "blocked" in url else None


def page(path: str, *controls: Control, signature: str | None = None) -> PageView:
    return PageView(SITE + path, path, "", (), signature or path, False, controls)


NAV = (Control("button", "Menu"), link("About", "/about"))
ITEMS = tuple(link(f"Kettle {i}", f"/item/{i}") for i in (1, 2, 3))


def shop() -> ScriptedSite:
    sub = link("Kettles", "/list")
    return ScriptedSite(
        pages={
            SITE + "/": page("/", *NAV, link("Log out", "/logout")),
            SITE + "/about": page("/about", *NAV, link("Kettle 2", "/item/2")),
            SITE + "/list": page("/list", *NAV, *ITEMS),
            **{SITE + f"/item/{i}": page(f"/item/{i}", *NAV, signature="item") for i in (1, 2, 3)},
        },
        clicks={
            (SITE + "/", ('button "Menu"',)): ClickOutcome(SITE + "/", False, (sub,)),
            (SITE + "/", ('button "Menu"', 'link "Kettles"')): ClickOutcome(SITE + "/list", True),
            (SITE + "/", ('link "About"',)): ClickOutcome(SITE + "/about", True),
            (SITE + "/list", ('link "Kettle 1"',)): ClickOutcome(SITE + "/item/1", True),
            (SITE + "/about", ('link "Kettle 2"',)): ClickOutcome(SITE + "/item/2", True),
        },
    )


async def test_depth_first_walk_with_menus_templates_and_dedupe() -> None:
    site = shop()
    mem = await Explorer(site, SCOPE, ExploreLimits(max_depth=2)).run(SITE + "/")
    assert [p.url.removeprefix(SITE) for p in mem.pages] == [
        "/", "/list", "/item/1", "/about", "/item/2",
    ]  # fmt: skip
    menu = next(e for e in mem.elements if e.label == 'button "Menu"')
    assert menu.effect == ElementEffect.reveals and menu.revealed == ['link "Kettles"']
    kettles = next(e for e in mem.elements if e.label == 'link "Kettles"')
    assert kettles.parent == 'button "Menu"' and kettles.target == SITE + "/list"
    # the nav is clicked once on the whole site; of the list only the first item
    assert [d[1] for d in site.done].count(('button "Menu"',)) == 1
    assert not [d for d in site.done if d[1] in (('link "Kettle 2"',),) and d[0].endswith("list")]
    (item,) = [t for t in mem.templates if t.kind == "item"]
    assert item.pattern == "/item/{}" and len(item.urls) == 3
    pages = {p.url.removeprefix(SITE): p for p in mem.pages}
    assert pages["/item/2"].template == "/item/{}" and not pages["/item/2"].iterated
    assert [s.reason for s in mem.skipped] == ["auth"]
    assert SITE + "/logout" not in site.loaded


async def test_limits_keep_the_partial_memory() -> None:
    mem = await Explorer(shop(), SCOPE, ExploreLimits(max_pages=2)).run(SITE + "/")
    assert len(mem.pages) == 2 and mem.stats["stopped"] == "max_pages"
    one = await Explorer(shop(), SCOPE, ExploreLimits(max_elements_per_page=1)).run(SITE + "/")
    assert [e.label for e in one.elements if e.page == SITE + "/"] == ['button "Menu"']
    ticks = iter(range(100))
    timed = Explorer(shop(), SCOPE, ExploreLimits(timeout_s=3), clock=lambda: next(ticks))
    mem = await timed.run(SITE + "/")
    assert mem.stats["stopped"] == "timeout" and len(mem.elements) < 4
