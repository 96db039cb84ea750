"""Private addresses are refused at connect time: redirect hops, popups, refreshes, frames.

A resolver override makes `public.test` a public address (connected to a local server), so
a page on an allowed public host can try every way of reaching a loopback server.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from playwright.async_api import Error as PlaywrightError

from app.settings import Settings
from app.urlpolicy import system_resolve
from workers.browser.runtime.egress import EgressProxy
from workers.browser.runtime.pool import BrowserPool

pytestmark = pytest.mark.browser

PUBLIC_IP = "93.184.216.34"


@dataclass
class Server:
    port: int
    hits: list[str] = field(default_factory=list)


def _serve() -> tuple[Server, ThreadingHTTPServer]:
    """Records paths; /redir?to=URL answers 302 to URL, anything else a small page."""
    state = Server(port=0)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            state.hits.append(self.path)
            if self.path.startswith("/redir?to="):
                self.send_response(302)
                self.send_header("Location", self.path.split("to=", 1)[1])
                self.end_headers()
                return
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<html><body><p id=p>internal secret</p></body></html>")

        def log_message(self, *args: object) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.port = server.server_address[1]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return state, server


@pytest.fixture
def servers() -> Iterator[tuple[Server, Server]]:
    public, s1 = _serve()
    internal, s2 = _serve()
    yield public, internal
    for s in (s1, s2):
        s.shutdown()
        s.server_close()


def _resolve(host: str) -> list[str]:
    return [PUBLIC_IP] if host == "public.test" else system_resolve(host)


async def _connect(host: str, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1" if host == PUBLIC_IP else host, port)


def _pool(chromium_path: str) -> BrowserPool:
    settings = Settings(chromium_path=chromium_path, allow_private_networks=False)
    return BrowserPool(settings, resolve=_resolve, connect=_connect)


async def test_redirect_to_private_address_is_refused(
    chromium_path: str, servers: tuple[Server, Server]
) -> None:
    public, internal = servers
    pool = _pool(chromium_path)
    await pool.start()
    try:
        async with pool.context() as page:
            await page.goto(f"http://public.test:{public.port}/ok")  # the allowed host works
            fetched = await page.evaluate(
                "url => fetch(url).then(r => r.text(), () => 'failed')",
                f"/redir?to=http://127.0.0.1:{internal.port}/sub",
            )
            assert fetched == "failed"
            for target in (
                f"http://127.0.0.1:{internal.port}/hop1",
                f"http://localhost:{internal.port}/hop1",
                f"http://public.test:{public.port}/redir?to=http://127.0.0.1:{internal.port}/hop2",
            ):
                with pytest.raises(PlaywrightError):
                    await page.goto(f"http://public.test:{public.port}/redir?to={target}")
        assert internal.hits == []
    finally:
        await pool.close()


async def test_popups_refreshes_and_frames_cannot_reach_private_addresses(
    chromium_path: str, servers: tuple[Server, Server]
) -> None:
    public, internal = servers
    secret = f"http://127.0.0.1:{internal.port}"
    pool = _pool(chromium_path)
    await pool.start()
    try:
        async with pool.context() as page:
            settled: list[str] = []
            for event in ("requestfailed", "requestfinished"):
                page.context.on(event, lambda request: settled.append(request.url))
            await page.goto(f"http://public.test:{public.port}/start")
            async with page.context.expect_page() as popup_info:
                await page.evaluate("url => { window.open(url) }", secret + "/popup")
            popup = await popup_info.value
            await popup.wait_for_load_state()
            await page.evaluate(
                """url => {
                    const f = document.createElement('iframe');
                    f.src = url;
                    document.body.appendChild(f);
                    const m = document.createElement('meta');
                    m.httpEquiv = 'refresh';
                    m.content = '0;url=' + url;
                    document.head.appendChild(m);
                }""",
                secret + "/frame",
            )
            # positive signal: the iframe and the refresh both tried /frame and got an answer
            await _settled(settled, secret + "/frame", 2)
            assert "internal secret" not in await popup.content()
        assert internal.hits == []
    finally:
        await pool.close()


async def test_proxy_refuses_private_and_unresolvable_hosts() -> None:
    proxy = EgressProxy(resolve=_resolve)
    for host in ("127.0.0.1", "localhost", "169.254.169.254", "[::1]", "0x7f.1", "10.1.2.3"):
        with pytest.raises(Exception, match=r"address|host name"):
            await proxy.address_for(host.strip("[]"))
    assert await proxy.address_for("public.test") == PUBLIC_IP
    assert await proxy.address_for("8.8.8.8") == "8.8.8.8"


async def test_proxy_pins_allowed_domains_and_refuses_until_bound() -> None:
    unbound = EgressProxy(resolve=_resolve, allowed_domains=None)
    with pytest.raises(Exception, match="no task is bound"):
        await unbound.address_for("public.test")
    unbound.bind(("public.test",))
    assert await unbound.address_for("public.test") == PUBLIC_IP
    with pytest.raises(Exception, match="outside the allowed domains"):
        await unbound.address_for("8.8.8.8")


async def _settled(urls: list[str], url: str, count: int, timeout: float = 15) -> None:
    """Until `count` requests for `url` have failed or finished in the browser."""
    async with asyncio.timeout(timeout):
        while sum(u == url for u in urls) < count:
            await asyncio.sleep(0.05)
