"""A local multi-page kettle shop for the memory-across-runs tests and bench (issue 21).

Home (a cookie consent dialog, a link to the kettles) -> the kettle list with a filter form
(a compound "Colour" dropdown: a button that opens a listbox of options, an "In stock only"
checkbox, an "Apply filters" submit that puts the filters in the query) -> the results ->
a product page reached through the list (a size select without a default that changes the
price, delivery radios, a city field and a "Quote delivery" button that shows the total).

`ShopServer(renamed=True)` serves the same shop with the submit button renamed "Show
results" (a site that changed). `policy(...)` is a scripted Worker that walks the shop by
element names: run 1 of a task takes 12 Worker steps (11 actions, then `done`).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.support.llm_server import Reply, tool_reply


@dataclass(frozen=True)
class Kettle:
    id: int
    name: str
    colour: str
    in_stock: bool
    prices: dict[str, float]  # size -> EUR


KETTLES = (
    Kettle(17, "Aurora", "red", True, {"1.2 L": 39.0, "1.7 L": 49.0}),
    Kettle(18, "Ember", "red", False, {"1.2 L": 29.0, "1.7 L": 35.0}),
    Kettle(21, "Nimbus", "blue", True, {"1.2 L": 35.0, "1.7 L": 45.0}),
    Kettle(22, "Tide", "blue", True, {"1.2 L": 31.0, "1.7 L": 41.0}),
    Kettle(30, "Fern", "green", True, {"1.2 L": 33.0, "1.7 L": 43.0}),
)
DELIVERY = {"standard": 3.0, "express": 7.5}

HOME = """<!doctype html><html><head><title>Kettle Shop</title></head><body>
<div id=consent role=dialog aria-label="Cookie consent"><p>We use cookies to run this shop.</p>
<button onclick="document.getElementById('consent').remove()">Accept all</button></div>
<header><nav aria-label="Main"><a href="/">Home</a> <a href="/shop/kettles">Kettles</a>
<a href="/about">About us</a></nav></header>
<main><h1>Kettle Shop</h1><p>Kettles in every colour, delivered tomorrow.</p></main>
</body></html>"""

LIST = """<!doctype html><html><head><title>Kettles</title></head><body>
<header><nav aria-label="Main"><a href="/">Home</a> <a href="/shop/kettles">Kettles</a></nav>
</header><main><h1>Kettles</h1>
<form aria-label="Filters" method=get action="/shop/kettles">
<input type=hidden name=colour id=colour value="">
<div class=dropdown><button type=button id=colour-button aria-haspopup=listbox
 aria-expanded=false onclick="toggle()">Colour: any</button>
<ul role=listbox id=colours aria-label="Colours" hidden>
<li role=option tabindex=-1 onclick="pick('red')">Red</li>
<li role=option tabindex=-1 onclick="pick('blue')">Blue</li>
<li role=option tabindex=-1 onclick="pick('green')">Green</li></ul></div>
<label><input type=checkbox name=stock value=1> In stock only</label>
<button type=submit>__SUBMIT__</button></form>
<section aria-label="Results"><h2>__COUNT__ kettles</h2><ul>__ITEMS__</ul></section>
</main>
<script>
function toggle() {
  const list = document.getElementById('colours');
  list.hidden = !list.hidden;
  document.getElementById('colour-button').setAttribute('aria-expanded', String(!list.hidden));
}
function pick(colour) {
  document.getElementById('colour').value = colour;
  document.getElementById('colour-button').textContent =
    'Colour: ' + colour[0].toUpperCase() + colour.slice(1);
  toggle();
}
</script></body></html>"""

PRODUCT = """<!doctype html><html><head><title>__NAME__ kettle</title></head><body>
<header><nav aria-label="Main"><a href="/">Home</a> <a href="/shop/kettles">Kettles</a></nav>
</header><main><h1>__NAME__ kettle</h1>
<p id=price>Price: choose a size</p>
<label>Size <select id=size onchange="show()">__SIZES__</select></label>
<fieldset><legend>Delivery</legend>
<label><input type=radio name=delivery value=standard checked> Standard delivery</label>
<label><input type=radio name=delivery value=express> Express delivery</label></fieldset>
<label>Delivery city <input type=text id=city></label>
<button type=button onclick="quote()">Quote delivery</button>
<p id=quote role=status></p></main>
<script>
const PRICES = __PRICES__;
const DELIVERY = __DELIVERY__;
function show() {
  const size = document.getElementById('size').value;
  document.getElementById('price').textContent =
    size ? 'Price: ' + PRICES[size].toFixed(2) + ' EUR' : 'Price: choose a size';
}
function quote() {
  const city = document.getElementById('city').value.trim();
  const how = document.querySelector('input[name=delivery]:checked').value;
  const fee = DELIVERY[how];
  if (!document.getElementById('size').value) {
    document.getElementById('quote').textContent = 'Choose a size first';
    return;
  }
  const total = PRICES[document.getElementById('size').value] + fee;
  document.getElementById('quote').textContent = city
    ? 'Delivery to ' + city + ': ' + fee.toFixed(2) + ' EUR. Total: ' + total.toFixed(2) + ' EUR'
    : 'Enter a delivery city';
}
</script></body></html>"""


def total(name: str, size: str, delivery: str = "express") -> str:
    kettle = next(k for k in KETTLES if k.name == name)
    return f"{kettle.prices[size] + DELIVERY[delivery]:.2f} EUR"


class ShopServer:
    """The shop on 127.0.0.1 (an ephemeral port) in a daemon thread."""

    def __init__(self, *, renamed: bool = False) -> None:
        self.renamed = renamed
        self.hits: list[str] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.base_url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def page(self, path: str, query: dict[str, list[str]]) -> tuple[int, str]:
        if path == "/":
            return 200, HOME
        if path == "/shop/kettles":
            return 200, self._list(query)
        found = re.fullmatch(r"/product/(\d+)", path)
        kettle = next((k for k in KETTLES if found and k.id == int(found[1])), None)
        if kettle is None:
            return 404, "<!doctype html><title>Not found</title><h1>Not found</h1>"
        sizes = '<option value="">Choose a size</option>'
        sizes += "".join(f"<option>{s}</option>" for s in kettle.prices)
        body = (
            PRODUCT.replace("__NAME__", kettle.name)
            .replace("__SIZES__", sizes)
            .replace("__PRICES__", json.dumps(kettle.prices))
            .replace("__DELIVERY__", json.dumps(DELIVERY))
        )
        return 200, body

    def _list(self, query: dict[str, list[str]]) -> str:
        colour = (query.get("colour") or [""])[0]
        stock = bool((query.get("stock") or [""])[0])
        shown = [
            k for k in KETTLES if (not colour or k.colour == colour) and (not stock or k.in_stock)
        ]
        items = "".join(
            f'<li><a href="/product/{k.id}">{k.name} kettle</a> from '
            f"{min(k.prices.values()):.2f} EUR</li>"
            for k in shown
        )
        submit = "Show results" if self.renamed else "Apply filters"
        return (
            LIST.replace("__SUBMIT__", submit)
            .replace("__COUNT__", str(len(shown)))
            .replace("__ITEMS__", items)
        )

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        shop = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                shop.hits.append(self.path)
                status, body = shop.page(parts.path, parse_qs(parts.query))
                self.send_response(status)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.end_headers()
                self.wfile.write(body.encode())

            def log_message(self, *args: object) -> None:
                return

        return Handler


# --- a scripted Worker that walks the shop ------------------------------------------------------


def instruction(colour: str, name: str, size: str, city: str) -> str:
    return (
        f"In the kettle shop, filter colour {colour} and in stock only, open the "
        f'"{name}" kettle, choose size {size} with express delivery to {city} and '
        "report the total"
    )


def last_page(request: dict[str, Any]) -> str:
    """The newest observation the Worker was shown (with its URL line)."""
    for message in reversed(request.get("messages", [])):
        content = message.get("content")
        if isinstance(content, str) and "<page_content" in content and "URL: " in content:
            return content
    return ""


def ref(page: str, role: str, name: str) -> str | None:
    found = re.findall(rf'\[(\d+:\d+)\] {role} "{re.escape(name)}"', page)
    return found[-1] if found else None


Move = tuple[str, str, str, dict[str, Any]]  # tool, role, element name, further arguments


def next_move(page: str, colour: str, name: str, size: str, city: str) -> list[Move]:
    """What the scripted Worker does on this page, first match wins."""
    label = colour.capitalize()
    if 'button "Accept all"' in page:
        return [("click", "button", "Accept all", {})]
    if 'combobox "Size"' in page:
        if f'combobox "Size" value="{size}"' not in page:
            return [("select_option", "combobox", "Size", {"values": [size]})]
        if '"Express delivery" checked' not in page:
            return [("click", "radio", "Express delivery", {})]
        if f'textbox "Delivery city" value="{city}"' not in page:
            return [("type", "textbox", "Delivery city", {"text": city})]
        return [("click", "button", "Quote delivery", {})]
    if f"colour={colour}&" in page:  # the filters are applied: open the kettle
        return [("click", "link", f"{name} kettle", {})]
    if f'button "Colour: {label}"' in page:
        if '"In stock only" checked' not in page:
            return [("click", "checkbox", "In stock only", {})]
        return [("click", "button", "Apply filters", {}), ("click", "button", "Show results", {})]
    if f'option "{label}"' in page:
        return [("click", "option", label, {})]
    if 'button "Colour: any"' in page:
        return [("click", "button", "Colour: any", {})]
    return [("click", "link", "Kettles", {})]


def policy(colour: str, name: str, size: str, city: str) -> Callable[[dict[str, Any]], Reply]:
    """The Worker of a run: decides each step from the page it is shown (element names
    only), so the same policy also finishes a run a replay handed over part-way."""

    def step(request: dict[str, Any]) -> Reply:
        page = last_page(request)
        done = re.search(r"Total: ([\d.]+ EUR)", page)
        if done:
            return tool_reply(("done", {"answer": done.group(1), "success": True}))
        for tool, role, element, args in next_move(page, colour, name, size, city):
            found = ref(page, role, element)
            if found is not None:
                return tool_reply((tool, {"ref": found, **args}))
        return tool_reply(("done", {"answer": "the shop did not show it", "success": False}))

    return step
