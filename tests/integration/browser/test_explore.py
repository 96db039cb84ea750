"""Site exploration in real Chromium (seed 001 App. A.2) on the local kettle shop: the pages,
the list and item templates, the dropdown's items, and the elements it must not click."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.async_api import Page

from app.contracts import ElementEffect, WebsiteMem
from app.urlpolicy import NetworkPolicy
from tests.support.explore_site import OFF_SITE, ExploreSite
from workers.agent.memory.exploration import ExploreLimits
from workers.browser.act.explore import explore_site

pytestmark = pytest.mark.browser

POLICY = NetworkPolicy(allow_private=True)


@pytest.fixture
def site() -> Iterator[ExploreSite]:
    with ExploreSite() as served:
        yield served


async def _explore(page: Page, site: ExploreSite, **limits: object) -> WebsiteMem:
    return await explore_site(page, site.url("/"), ExploreLimits(**limits), policy=POLICY)  # type: ignore[arg-type]


async def test_exploration_builds_the_site_memory(page: Page, site: ExploreSite) -> None:
    mem = await _explore(page, site)
    urls = {p.url.removeprefix(site.origin): p for p in mem.pages}
    assert set(urls) == {"/", "/products", "/products/1", "/gifts", "/about", "/products/3"}
    assert urls["/products"].title == "All products"
    assert urls["/products/1"].via == 'link "Red kettle"'
    assert urls["/"].summary.startswith("Kettle World")
    assert any("Kettles, teapots" in s.summary for s in urls["/"].sections)

    item = next(t for t in mem.templates if t.kind == "item")
    assert item.pattern == "/products/{}"
    assert {u.removeprefix(site.origin) for u in item.urls} >= {
        f"/products/{i}" for i in (1, 2, 3, 4)
    }
    # the featured product reached from /about matched the template: known shape, not iterated
    assert urls["/products/3"].template == "/products/{}" and not urls["/products/3"].iterated
    assert urls["/products/1"].template == "/products/{}"
    assert any(t.kind == "list" and t.pattern == "/products" for t in mem.templates)

    shop = next(e for e in mem.elements if e.label == 'button "Shop"')
    assert shop.effect == ElementEffect.reveals
    assert shop.revealed == ['link "All products"', 'link "Gift cards"']
    products = next(e for e in mem.elements if e.label == 'link "All products"')
    assert products.effect == ElementEffect.navigates and products.parent == 'button "Shop"'

    reasons = {s.label: s.reason for s in mem.skipped}
    assert reasons['link "Log out"'] == "auth"
    assert reasons['link "Email us"'] == "scheme"
    assert reasons['link "Partner shop"'] == "off_site"
    assert reasons['button "Delete account"'] == "destructive"
    assert reasons['button "Print this page"'] == "scheme"
    assert next(s.href for s in mem.skipped if s.reason == "off_site") == OFF_SITE
    assert "/logout" not in site.requests
    assert not [r for r in site.requests if r.startswith("POST")]
    # one list item was clicked; the other items are members of its template, never clicked
    assert not [r for r in site.requests if r in ("/products/2", "/products/4")]
    clicked = [e.label for e in mem.elements]
    assert len(clicked) == len(set(clicked))  # each element once (the nav is on every page)


async def test_limits_cut_the_walk_short(page: Page, site: ExploreSite) -> None:
    mem = await _explore(page, site, max_pages=2)
    assert len(mem.pages) == 2 and mem.stats["stopped"] == "max_pages"
    shallow = await _explore(page, site, max_depth=0)
    assert [p.url for p in shallow.pages] == [site.url("/")] and not shallow.elements
