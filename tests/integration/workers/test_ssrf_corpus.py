"""SSRF corpus, run three ways through the real BrowserPool (router guard + egress proxy).

Hosts: `a.test` and `b.test` resolve (in the pool's resolver) to public-looking addresses
whose connections the test connector sends to two local servers; `intranet.test` resolves
to 10.2.0.5 (a third local server); cloud metadata addresses connect to a fake metadata
server; loopback names and literals reach a canary server on 127.0.0.1 for real.

1. default policy: the canary and the metadata server record zero hits;
2. operator allowlist (ALLOWED_PRIVATE_HOSTS=intranet.test): the intranet site works, the
   canary and metadata still record zero hits;
3. a task's allowed_domains=[a.test]: every request type to b.test is refused (zero hits),
   not only navigations, while a.test keeps working.
Each vector resolves a promise on its own load/error event (a positive signal), bounded.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from app.settings import Settings
from workers.browser.pool import BrowserPool

pytestmark = pytest.mark.browser

A_IP, B_IP, INTRANET_IP = "93.184.216.34", "93.184.216.35", "10.2.0.5"
METADATA_IPS = {"169.254.169.254", "fd00:ec2::254", "169.254.170.2", "100.100.100.200"}
DNS = {
    "a.test": [A_IP],
    "b.test": [B_IP],
    "intranet.test": [INTRANET_IP],
    "private.test": ["127.0.0.1"],
    "metadata.google.internal": ["169.254.169.254"],
}

# request types: each JS body gets `u` (target URL) and `done()` (call on load or error)
VECTORS: dict[str, str] = {
    "img": "const i = new Image(); i.onload = i.onerror = done; i.src = u;",
    "img-srcset": "const i = new Image(); i.onload = i.onerror = done; i.srcset = u + ' 1x';",
    "script": "const s = document.createElement('script'); s.onload = s.onerror = done;"
    " s.src = u; document.head.append(s);",
    "stylesheet": "const l = document.createElement('link'); l.rel = 'stylesheet';"
    " l.onload = l.onerror = done; l.href = u; document.head.append(l);",
    "css-background": "const d = document.createElement('div'); d.style.background ="
    " `url(${u})`; document.body.append(d); getComputedStyle(d).background;"
    " setTimeout(done, 400);",
    "css-import": "const s = document.createElement('style'); s.onload = s.onerror = done;"
    " s.textContent = `@import url(${u});`; document.head.append(s); setTimeout(done, 400);",
    "prefetch": "const l = document.createElement('link'); l.rel = 'prefetch';"
    " l.onload = l.onerror = done; l.href = u; document.head.append(l);",
    "preload": "const l = document.createElement('link'); l.rel = 'preload'; l.as = 'fetch';"
    " l.onload = l.onerror = done; l.href = u; document.head.append(l);",
    "fetch": "fetch(u).then(done, done);",
    "fetch-no-cors": "fetch(u, {mode: 'no-cors'}).then(done, done);",
    "fetch-post": "fetch(u, {method: 'POST', body: 'x', mode: 'no-cors'}).then(done, done);",
    "fetch-302": "fetch('/redir?to=' + encodeURIComponent(u), {mode: 'no-cors'}).then(done, done);",
    "xhr": "const x = new XMLHttpRequest(); x.onloadend = done; x.open('GET', u); x.send();",
    "websocket": "const w = new WebSocket(u.replace('http', 'ws'));"
    " w.onopen = w.onerror = w.onclose = done;",
    "beacon": "navigator.sendBeacon(u, 'x'); setTimeout(done, 400);",
    "eventsource": "const e = new EventSource(u); e.onopen = e.onerror = () => { e.close();"
    " done(); };",
    "worker-fetch": "const b = new Blob([`fetch(${JSON.stringify(u)}).then(() =>"
    " postMessage(1), () => postMessage(0))`]); const w = new Worker(URL.createObjectURL(b));"
    " w.onmessage = w.onerror = done;",
    "iframe": "const f = document.createElement('iframe'); f.onload = f.onerror = done;"
    " f.src = u; document.body.append(f);",
    "iframe-302": "const f = document.createElement('iframe'); f.onload = f.onerror = done;"
    " f.src = '/redir?to=' + encodeURIComponent(u); document.body.append(f);",
    "audio": "const a = new Audio(); a.onloadeddata = a.onerror = done; a.src = u;",
    "object": "const o = document.createElement('object'); o.onload = o.onerror = done;"
    " o.data = u; document.body.append(o);",
    "svg-image": "const s = document.createElementNS('http://www.w3.org/2000/svg', 'svg');"
    " const i = document.createElementNS('http://www.w3.org/2000/svg', 'image');"
    " i.onload = i.onerror = done; i.setAttribute('href', u); s.append(i);"
    " document.body.append(s);",
    "form-post": "const f = document.createElement('form'); f.method = 'POST'; f.action = u;"
    " f.target = 'sink'; const fr = document.createElement('iframe'); fr.name = 'sink';"
    " fr.onload = done; document.body.append(fr, f); f.submit();",
    "popup": "const w = window.open(u); setTimeout(done, 600);",
    "dynamic-import": "import(u).then(done, done);",
}
# navigations of the whole tab: direct, via the start URL's 302, meta refresh
NAVIGATIONS = ("goto", "goto-302", "meta-refresh")
# address encodings of the canary (loopback) and of metadata, fetched and navigated
PRIVATE_FORMS = [
    "127.0.0.1:{canary}",
    "localhost:{canary}",
    "2130706433:{canary}",
    "0x7f.0.0.1:{canary}",
    "0177.0.0.1:{canary}",
    "127.1:{canary}",
    "[::ffff:127.0.0.1]:{canary}",
    "private.test:{canary}",
    "LOCALHOST.:{canary}",
]
METADATA_FORMS = [
    "169.254.169.254",
    "2852039166",
    "0xa9.0xfe.0xa9.0xfe",
    "[::ffff:169.254.169.254]",
    "metadata.google.internal",
    "[fd00:ec2::254]",
    "169.254.170.2",
    "100.100.100.200",
]


@dataclass
class Site:
    port: int = 0
    hits: list[str] = field(default_factory=list)


def _serve(site: Site) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def _answer(self) -> None:
            site.hits.append(f"{self.command} {self.path}")
            if self.path.startswith("/redir?to="):
                from urllib.parse import unquote

                self.send_response(302)
                self.send_header("Location", unquote(self.path.split("to=", 1)[1]))
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Access-Control-Allow-Origin", "*")
            self.end_headers()
            self.wfile.write(b"<html><body><p id=p>site page</p></body></html>")

        do_GET = do_POST = _answer

        def log_message(self, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    site.port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


@dataclass
class World:
    a: Site
    b: Site
    intranet: Site
    canary: Site
    metadata: Site

    def resolve(self, host: str) -> list[str]:
        if host in DNS:
            return DNS[host]
        raise OSError(f"unknown host {host}")

    async def connect(
        self, address: str, port: int
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        local = {A_IP: self.a, B_IP: self.b, INTRANET_IP: self.intranet}
        if address in local:
            port = local[address].port
        elif address in METADATA_IPS:
            port = self.metadata.port
        elif address not in ("127.0.0.1", "::1", "::ffff:127.0.0.1"):
            raise OSError(f"no route to {address} in this test")
        return await asyncio.open_connection("127.0.0.1", port)

    def pool(self, chromium_path: str, **settings: object) -> BrowserPool:
        cfg = Settings(chromium_path=chromium_path, allow_private_networks=False, **settings)
        return BrowserPool(cfg, resolve=self.resolve, connect=self.connect)


@pytest.fixture
def world() -> Iterator[World]:
    sites = [Site() for _ in range(5)]
    servers = [_serve(s) for s in sites]
    yield World(*sites)
    for server in servers:
        server.shutdown()
        server.server_close()


async def _fire(page: Page, vector: str, url: str) -> None:
    """Run one vector against `url` and wait for its own load/error signal (bounded)."""
    body = VECTORS[vector]
    script = (
        "u => new Promise(resolve => { const done = () => resolve(true);"
        " setTimeout(done, 3000); try { " + body + " } catch (e) { done(); } })"
    )
    await page.evaluate(script, url)


async def _navigate(page: Page, how: str, url: str, a_base: str) -> None:
    """Whole-tab navigations; a refused one raises or lands on an error page."""
    try:
        if how == "goto":
            await page.goto(url, timeout=5000)
        elif how == "goto-302":
            await page.goto(f"{a_base}/redir?to={url}", timeout=5000)
        else:
            await page.goto(f"{a_base}/start", timeout=5000)
            await page.evaluate(
                "u => { const m = document.createElement('meta'); m.httpEquiv = 'refresh';"
                " m.content = '0;url=' + u; document.head.append(m); }",
                url,
            )
            await page.wait_for_url(lambda _: True, timeout=2000)
            await page.wait_for_load_state(timeout=3000)
    except PlaywrightError:
        return


async def _start(page: Page, a_base: str) -> None:
    """Back to the attack page; a refused navigation still settling may interrupt once."""
    for attempt in range(3):
        try:
            await page.goto(f"{a_base}/start")
            return
        except PlaywrightError:
            if attempt == 2:
                raise


async def _run_corpus(page: Page, a_base: str, targets: list[str]) -> int:
    """Every vector and navigation against every target; returns the number of cases."""
    cases = 0
    for target in targets:
        for vector in VECTORS:
            await _start(page, a_base)
            await _fire(page, vector, f"{target}/{vector}")
            cases += 1
        for how in NAVIGATIONS:
            tab = await page.context.new_page()
            await _navigate(tab, how, f"{target}/{how}", a_base)
            await tab.close()
            cases += 1
    return cases


def _encoded_targets(world: World) -> list[str]:
    private = [f"http://{f.format(canary=world.canary.port)}" for f in PRIVATE_FORMS]
    return private + [f"http://{f}" for f in METADATA_FORMS]


async def _encodings(page: Page, world: World, a_base: str) -> int:
    """Every address encoding by fetch and by navigation; returns the number of cases."""
    cases = 0
    for target in _encoded_targets(world):
        tab = await page.context.new_page()  # a fresh tab per encoding
        await _start(tab, a_base)
        await _fire(tab, "fetch-no-cors", f"{target}/enc-fetch")
        await _navigate(tab, "goto", f"{target}/enc-goto", a_base)
        await tab.close()
        cases += 2
    return cases


async def _schemes(page: Page) -> int:
    for url in ("file:///etc/passwd", "chrome://version", "view-source:file:///etc/passwd"):
        try:
            await page.goto(url, timeout=5000)
        except PlaywrightError:
            continue
        assert "root:" not in await page.content()
    return 3


async def test_default_policy_corpus_zero_canary_and_metadata_hits(
    chromium_path: str, world: World
) -> None:
    pool = world.pool(chromium_path)
    await pool.start()
    try:
        async with pool.context() as page:
            a_base = f"http://a.test:{world.a.port}"
            await page.goto(f"{a_base}/start")
            assert await page.text_content("#p") == "site page"  # public hosts still work
            canary = f"http://127.0.0.1:{world.canary.port}"
            cases = await _run_corpus(page, a_base, [canary, "http://169.254.169.254"])
            cases += await _encodings(page, world, a_base)
            cases += await _schemes(page)
    finally:
        await pool.close()
    assert cases >= 40
    assert world.canary.hits == [] and world.metadata.hits == []
    print(f"\nSSRF corpus, default policy: {cases} cases, canary+metadata hits = 0")


async def test_operator_allowlist_opens_one_site_and_nothing_else(
    chromium_path: str, world: World
) -> None:
    pool = world.pool(chromium_path, allowed_private_hosts="intranet.test")
    await pool.start()
    try:
        async with pool.context() as page:
            await page.goto(f"http://intranet.test:{world.intranet.port}/wiki")
            assert await page.text_content("#p") == "site page"  # the listed site works
            a_base = f"http://a.test:{world.a.port}"
            canary = f"http://127.0.0.1:{world.canary.port}"
            cases = await _run_corpus(page, a_base, [canary, "http://169.254.169.254"])
            cases += await _encodings(page, world, a_base)
            cases += await _schemes(page)
    finally:
        await pool.close()
    assert "GET /wiki" in world.intranet.hits
    assert world.canary.hits == [] and world.metadata.hits == []
    print(f"\nSSRF corpus, ALLOWED_PRIVATE_HOSTS=intranet.test: {cases} cases, hits = 0")


async def test_allowed_domains_pin_every_request_type(chromium_path: str, world: World) -> None:
    pool = world.pool(chromium_path)
    await pool.start()
    try:
        async with pool.context(allowed_domains=["a.test"]) as page:
            a_base = f"http://a.test:{world.a.port}"
            await page.goto(f"{a_base}/start")
            same = await page.evaluate("() => fetch('/same').then(r => r.status)")
            assert same == 200  # the allowed host keeps working for every request type
            cases = await _run_corpus(page, a_base, [f"http://b.test:{world.b.port}"])
            cases += await _schemes(page)
    finally:
        await pool.close()
    assert "GET /same" in world.a.hits
    assert world.b.hits == [], world.b.hits
    assert world.canary.hits == [] and world.metadata.hits == []
    print(f"\nSSRF corpus, allowed_domains=[a.test]: {cases} cases, b.test hits = 0")
