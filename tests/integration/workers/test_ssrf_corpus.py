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
import contextlib
import time
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from urllib.parse import unquote

import pytest
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page

from app.settings import Settings
from tests.support.recording_server import Answer, FakeNetwork, RecordingServer
from workers.browser.runtime.pool import BrowserPool

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
# vectors that send no request even to an allowed host here (so their zero hits prove nothing)
NOT_SEEN_WHEN_ALLOWED: frozenset[str] = frozenset()
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


def _respond(method: str, path: str) -> Answer:
    if path.startswith("/redir?to="):
        return 302, {"Location": unquote(path.split("to=", 1)[1])}, b""
    headers = {"Content-Type": "text/html", "Access-Control-Allow-Origin": "*"}
    return 200, headers, b"<html><body><p id=p>site page</p></body></html>"


@dataclass
class World:
    a: RecordingServer
    b: RecordingServer
    intranet: RecordingServer
    canary: RecordingServer
    metadata: RecordingServer

    def pool(self, chromium_path: str, **settings: object) -> BrowserPool:
        """The real BrowserPool; its connections go to these servers (loopback for real)."""
        routes = {A_IP: self.a, B_IP: self.b, INTRANET_IP: self.intranet}
        routes |= dict.fromkeys(METADATA_IPS, self.metadata)
        net = FakeNetwork(DNS, routes, loopback=True)
        cfg = Settings(chromium_path=chromium_path, allow_private_networks=False, **settings)
        return BrowserPool(cfg, resolve=net.resolve, connect=net.connect)


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    with contextlib.ExitStack() as stack:
        sites = [stack.enter_context(RecordingServer(_respond)) for _ in range(5)]
        yield World(*sites)


@pytest.fixture(scope="module")
async def default_pool(world: World, chromium_path: str) -> AsyncIterator[BrowserPool]:
    """The default policy's pool, shared by the tests that do not change settings."""
    pool = world.pool(chromium_path)
    await pool.start()
    try:
        yield pool
    finally:
        await pool.close()


async def _fire(page: Page, cases: list[tuple[str, str]]) -> None:
    """Run every (vector, url) case at once, each in its own closure, and wait until each
    has its own load/error signal (bounded at 3 s)."""
    one = (
        "new Promise(resolve => {{ const u = us[{i}]; const done = () => resolve(true);"
        " setTimeout(done, 3000); try {{ {body} }} catch (e) {{ done(); }} }})"
    )
    parts = [one.format(i=i, body=VECTORS[vector]) for i, (vector, _) in enumerate(cases)]
    await page.evaluate("us => Promise.all([" + ", ".join(parts) + "])", [u for _, u in cases])


def _reached(server: RecordingServer) -> set[str]:
    """The vectors whose request under /ok/ the server has seen."""
    return {v for v in VECTORS if any(f" /ok/{v} " in r for r in server.requests)}


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
    """Every vector and navigation against every target; returns the number of cases.

    All targets' vectors fire in one batch, so the page waits once for its slowest vector
    (a popup, a 400 ms timer) instead of once per target. Every vector signals: a refused
    WebSocket closes with 1008 "blocked by URL policy"."""
    await _start(page, a_base)
    await _fire(page, [(v, f"{target}/{v}") for target in targets for v in VECTORS])
    for target in targets:
        tab = await page.context.new_page()  # left open: the context closes its tabs
        for how in NAVIGATIONS:
            await _navigate(tab, how, f"{target}/{how}", a_base)
    return len(targets) * (len(VECTORS) + len(NAVIGATIONS))


def _encoded_targets(world: World) -> list[str]:
    private = [f"http://{f.format(canary=world.canary.port)}" for f in PRIVATE_FORMS]
    return private + [f"http://{f}" for f in METADATA_FORMS]


async def _encodings(page: Page, world: World, a_base: str) -> int:
    """Every address encoding by fetch and by navigation; returns the number of cases."""
    targets = _encoded_targets(world)
    # left open: closing a tab right after a row of refused navigations can stall
    # Playwright's close; the context closes its tabs
    tab = await page.context.new_page()
    await _start(tab, a_base)
    await _fire(tab, [("fetch-no-cors", f"{target}/enc-fetch") for target in targets])
    for target in targets:
        await _navigate(tab, "goto", f"{target}/enc-goto", a_base)
    return 2 * len(targets)


async def _schemes(page: Page) -> int:
    for url in ("file:///etc/passwd", "chrome://version", "view-source:file:///etc/passwd"):
        try:
            await page.goto(url, timeout=5000)
        except PlaywrightError:
            continue
        assert "root:" not in await page.content()
    return 3


async def test_default_policy_corpus_zero_canary_and_metadata_hits(
    default_pool: BrowserPool, world: World
) -> None:
    async with default_pool.context() as page:
        a_base = f"http://a.test:{world.a.port}"
        await page.goto(f"{a_base}/start")
        assert await page.text_content("#p") == "site page"  # public hosts still work
        canary = f"http://127.0.0.1:{world.canary.port}"
        cases = await _run_corpus(page, a_base, [canary, "http://169.254.169.254"])
        cases += await _encodings(page, world, a_base)
        cases += await _schemes(page)
    assert cases >= 40
    assert world.canary.requests == [] and world.metadata.requests == []
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
    assert world.intranet.hits("GET", "/wiki") == 1
    assert world.canary.requests == [] and world.metadata.requests == []
    print(f"\nSSRF corpus, ALLOWED_PRIVATE_HOSTS=intranet.test: {cases} cases, hits = 0")


async def test_allowed_domains_pin_every_request_type(
    default_pool: BrowserPool, world: World
) -> None:
    async with default_pool.context(allowed_domains=["a.test"]) as page:
        a_base = f"http://a.test:{world.a.port}"
        await page.goto(f"{a_base}/start")
        # the allowed host keeps working for every request type (the vectors do fire)
        await _fire(page, [(vector, f"{a_base}/ok/{vector}") for vector in VECTORS])
        expected = set(VECTORS) - NOT_SEEN_WHEN_ALLOWED
        deadline = time.monotonic() + 5  # a beacon is sent after its page moved on
        while (reached := _reached(world.a)) != expected and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert reached == expected, set(VECTORS) - reached
        cases = await _run_corpus(page, a_base, [f"http://b.test:{world.b.port}"])
        cases += await _schemes(page)
    assert world.b.requests == [], world.b.requests
    assert world.canary.requests == [] and world.metadata.requests == []
    print(f"\nSSRF corpus, allowed_domains=[a.test]: {cases} cases, b.test hits = 0")


async def test_a_refused_websocket_tells_the_page_why(
    default_pool: BrowserPool, world: World
) -> None:
    """The page learns the socket was refused (close 1008 with the reason), as a site's own
    error handling expects, instead of a socket that never opens and never closes."""
    before = len(world.b.requests), len(world.canary.requests)
    async with default_pool.context(allowed_domains=["a.test"]) as page:
        await _start(page, f"http://a.test:{world.a.port}")
        targets = [f"ws://b.test:{world.b.port}/ws", f"ws://127.0.0.1:{world.canary.port}/ws"]
        for url in targets:
            seen = await page.evaluate(
                """u => new Promise((done) => {
                  const ws = new WebSocket(u);
                  ws.onopen = () => done('open');
                  ws.onclose = (e) => done(`close ${e.code} ${e.reason}`);
                  setTimeout(() => done('silent'), 5000);
                })""",
                url,
            )
            assert seen == "close 1008 blocked by URL policy", (url, seen)
    assert (len(world.b.requests), len(world.canary.requests)) == before
