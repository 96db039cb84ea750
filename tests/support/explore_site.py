"""A small multi-page site for the site-exploration tests (seed 001 App. A.2), on 127.0.0.1.

    /               nav: Home, a "Shop" dropdown (opens on hover and on click) holding
                    "All products" and "Gift cards", About, "Log out", a mailto link;
                    main: an off-site "Partner shop" link, a "Delete account" button
                    (it would POST /api/delete), a "Print this page" button
    /products       a list of four products, each linking to /products/<n>
    /products/<n>   one template: name, price, an "Add to cart" button, "Back to products"
    /gifts          a plain page
    /about          text and a "Featured: <product 3>" link (a second page of the template)
    /logout         must never be requested

`ExploreSite.requests` records every path asked for (and POSTs), so a test can prove what
the exploration did not touch.
"""

from __future__ import annotations

import html
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.background import BackgroundServer

PRODUCTS = (
    ("Red kettle", "12 EUR", "A red kettle for two litres."),
    ("Green kettle", "14 EUR", "A green kettle with a whistle."),
    ("Blue teapot", "19 EUR", "A blue teapot of glazed clay."),
    ("Steel mug", "6 EUR", "A steel mug that keeps tea warm."),
)
OFF_SITE = "http://partner.example.org/shop"

_STYLE = """<style>
.menu { position: relative; display: inline-block; }
.menu .items { display: none; position: absolute; background: #eee; }
.menu:hover .items, .menu.open .items { display: block; }
nav a, nav button { margin-right: 12px; }
</style>"""

_NAV = """<header><nav aria-label="Main">
<a href="/">Home</a>
<div class="menu" id="shop"><button type="button"
  onclick="document.getElementById('shop').classList.toggle('open')">Shop</button>
  <div class="items"><a href="/products">All products</a> <a href="/gifts">Gift cards</a></div>
</div>
<a href="/about">About</a>
<a href="/logout">Log out</a>
<a href="mailto:help@kettles.test">Email us</a>
</nav></header>"""


def _page(title: str, body: str) -> str:
    return (
        f"<!doctype html><html><head><title>{html.escape(title)}</title>{_STYLE}</head>"
        f"<body>{_NAV}<main>{body}</main></body></html>"
    )


HOME = _page(
    "Kettle World",
    """<h1>Kettle World</h1><p>Kettles, teapots and mugs since 1990.</p>
<p><a href="http://partner.example.org/shop">Partner shop</a></p>
<button type="button" onclick="fetch('/api/delete', {method: 'POST'})">Delete account</button>
<button type="button" onclick="window.print()">Print this page</button>""",
)


def _products() -> str:
    items = "".join(
        f'<li class="product"><a href="/products/{i}">{html.escape(name)}</a> '
        f"<span>{price}</span></li>"
        for i, (name, price, _) in enumerate(PRODUCTS, start=1)
    )
    return _page(
        "All products", f'<h1>All products</h1><p>Four things.</p><ul class="list">{items}</ul>'
    )


def _product(n: int) -> str:
    name, price, text = PRODUCTS[n - 1]
    return _page(
        name,
        f"<h1>{html.escape(name)}</h1><p>{html.escape(text)}</p><p>Price: {price}</p>"
        "<button type=\"button\" onclick=\"fetch('/api/cart', {method: 'POST'})\">"
        'Add to cart</button> <a href="/products">Back to products</a>',
    )


PAGES: dict[str, str] = {
    "/": HOME,
    "/products": _products(),
    "/gifts": _page("Gift cards", "<h1>Gift cards</h1><p>Give a kettle to a friend.</p>"),
    "/about": _page(
        "About us",
        "<h1>About us</h1><p>A family shop for tea things.</p>"
        '<p><a href="/products/3">Featured: Blue teapot</a></p>',
    ),
    **{f"/products/{i}": _product(i) for i in range(1, len(PRODUCTS) + 1)},
}


class ExploreSite(BackgroundServer):
    def __init__(self) -> None:
        self.requests: list[str] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                site.requests.append(self.path)
                body = PAGES.get(self.path.split("?", 1)[0])
                self.send_response(200 if body is not None else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.end_headers()
                self.wfile.write((body or "<title>Not found</title>").encode())

            def do_POST(self) -> None:
                site.requests.append(f"POST {self.path}")
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                return

        super().__init__(Handler)

    def url(self, path: str = "/") -> str:
        return self.origin + path
