"""Local test websites on 127.0.0.1 (port 0) for agent, runtime, API and benchmark tests.

Pages (templates in tests/support/sites/*.html):
  /                      index with links to everything below
  /shop                  product list in no particular order + a "Sort by price" button (JS)
  /shop/product/<slug>   product detail: name, price, "Add to cart"
  /form                  contact form (text, email, select, textarea, checkbox), POSTs to
  /form/submit           which echoes the submission (also recorded in `site.submissions`)
  /links, /links/<n>     a directory of topic pages
  /slow?ms=N             answers after N ms (capped at 30 s): timeouts and cancellation
  /counter/<n>           endless "Next page" chain: an agent that never finishes (max_steps)
"""

from __future__ import annotations

import html
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from importlib.resources import files
from string import Template
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from tests.support.background import BackgroundServer

MAX_DELAY_MS = 30_000


@dataclass(frozen=True)
class Product:
    slug: str
    name: str
    cents: int
    description: str

    @property
    def price(self) -> str:
        return f"${self.cents // 100}.{self.cents % 100:02d}"


PRODUCTS: tuple[Product, ...] = (
    Product("trail-backpack", "Trail Backpack", 8900, "A 30 litre pack for day hikes."),
    Product("steel-bottle", "Steel Water Bottle", 2450, "Keeps drinks cold for 24 hours."),
    Product("camping-lantern", "Camping Lantern", 3199, "Rechargeable, 300 lumen."),
    Product("wool-socks", "Wool Socks", 1275, "Merino hiking socks, two pairs."),
    Product("rain-jacket", "Rain Jacket", 11900, "Waterproof shell with a hood."),
    Product("pocket-knife", "Pocket Knife", 1840, "Folding knife with a locking blade."),
)

TOPICS: tuple[tuple[str, str], ...] = (
    ("Birds", "Swifts can stay airborne for ten months."),
    ("Rivers", "The Amazon carries more water than any other river."),
    ("Mountains", "Mount Everest grows about four millimetres a year."),
    ("Deserts", "The Atacama is the driest non-polar desert."),
    ("Forests", "Boreal forests circle the far north."),
)

FORM_FIELDS = ("name", "email", "topic", "message", "newsletter")


def cheapest() -> Product:
    return min(PRODUCTS, key=lambda p: p.cents)


def _template(name: str) -> Template:
    return Template(files("tests.support").joinpath("sites", name).read_text(encoding="utf-8"))


def render(template: str, **values: Any) -> str:
    """Fill a page template; every value is HTML-escaped."""
    return _template(template).substitute({k: html.escape(str(v)) for k, v in values.items()})


def _shop() -> str:
    items = "\n".join(
        f'<li data-price="{p.cents / 100:.2f}"><a href="/shop/product/{p.slug}">'
        f'View {html.escape(p.name)}</a><span class="price">{p.price}</span></li>'
        for p in PRODUCTS
    )
    return _template("shop.html").substitute(items=items)


def _links() -> str:
    items = "\n".join(
        f'<li><a href="/links/{i}">{html.escape(title)}</a></li>'
        for i, (title, _) in enumerate(TOPICS, 1)
    )
    return _template("links.html").substitute(links=items)


def _form_result(fields: dict[str, str], reference: int) -> str:
    rows = "\n".join(
        f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in fields.items()
    )
    return _template("form_result.html").substitute(fields=rows, reference=reference)


class TestSite(BackgroundServer):
    """The running site; `url("/shop")` gives an absolute URL, records let tests assert."""

    __test__ = False  # not a pytest test class

    def __init__(self) -> None:
        self.submissions: list[dict[str, str]] = []
        self.paths: list[str] = []
        self._lock = threading.Lock()
        super().__init__(_handler(self))

    @property
    def base_url(self) -> str:
        return self.origin

    def url(self, path: str = "/") -> str:
        return self.base_url + path

    def page(self, method: str, path: str, form: dict[str, str]) -> tuple[int, str]:
        """Route one request to (status, html)."""
        with self._lock:
            self.paths.append(path)
        parts = urlsplit(path)
        route, query = parts.path.rstrip("/") or "/", parse_qs(parts.query)
        if method == "POST" and route == "/form/submit":
            with self._lock:
                self.submissions.append(form)
                reference = 1000 + len(self.submissions)
            return 200, _form_result(form, reference)
        return _get(route, query)


def _get(route: str, query: dict[str, list[str]]) -> tuple[int, str]:
    static = {"/": "index.html", "/form": "form.html"}
    if route in static:
        return 200, _template(static[route]).template
    if route == "/shop":
        return 200, _shop()
    if route == "/links":
        return 200, _links()
    head, _, tail = route.rpartition("/")
    if head == "/shop/product":
        for p in PRODUCTS:
            if p.slug == tail:
                page = render("product.html", name=p.name, price=p.price, description=p.description)
                return 200, page
    if head == "/links" and tail.isdigit() and 1 <= int(tail) <= len(TOPICS):
        title, body = TOPICS[int(tail) - 1]
        return 200, render("topic.html", title=title, body=body)
    if head == "/counter" and tail.isdigit():
        return 200, render("counter.html", n=int(tail), next=int(tail) + 1)
    if route == "/slow":
        ms = min(int((query.get("ms") or ["1000"])[0]), MAX_DELAY_MS)
        time.sleep(ms / 1000)
        return 200, render("slow.html", ms=ms)
    return 404, "<!doctype html><title>Not found</title><h1>Not found</h1>"


def _handler(site: TestSite) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            return

        def _respond(self, method: str, form: dict[str, str]) -> None:
            status, body = site.page(method, self.path, form)
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:
            self._respond("GET", {})

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0)).decode()
            form = {k: ", ".join(v) for k, v in parse_qs(raw, keep_blank_values=True).items()}
            self._respond("POST", form)

    return Handler


@pytest.fixture
def test_site() -> Iterator[TestSite]:
    """The local test websites, fresh per test (records start empty)."""
    with TestSite() as site:
        yield site
