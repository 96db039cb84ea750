"""The search route's fetcher connects to the address its policy check accepted (no DNS
rebinding window): workers/fetcher.py PinnedBackend."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpcore
import pytest

from workers.fetcher import FetchPolicy, HttpFetcher, PinnedBackend

PUBLIC_IP = "93.184.216.34"


@dataclass
class Server:
    port: int = 0
    hits: list[tuple[str, str]] = field(default_factory=list)  # (path, Host header)
    redirect: str = ""


def _serve(server_state: Server) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            server_state.hits.append((self.path, self.headers.get("Host", "")))
            if server_state.redirect and self.path == "/hop":
                self.send_response(302)
                self.send_header("Location", server_state.redirect)
                self.end_headers()
                return
            body = b"<html><title>Public</title><p>public page</p></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            return

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server_state.port = httpd.server_address[1]
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd


@pytest.fixture
def servers() -> Iterator[tuple[Server, Server]]:
    public, canary = Server(), Server()
    running = [_serve(public), _serve(canary)]
    yield public, canary
    for httpd in running:
        httpd.shutdown()
        httpd.server_close()


class RebindingResolver:
    """First answer public, every later answer loopback: a DNS rebinding attacker."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, host: str) -> list[str]:
        self.calls.append(host)
        return [PUBLIC_IP] if len(self.calls) == 1 else ["127.0.0.1"]


def _fetcher(resolver: RebindingResolver, public: Server, canary: Server) -> HttpFetcher:
    backend = httpcore.AnyIOBackend()

    async def open_tcp(address: str, port: int) -> httpcore.AsyncNetworkStream:
        # the public address is the test's public server; loopback is the canary, for real
        target = public.port if address == PUBLIC_IP else canary.port
        return await backend.connect_tcp("127.0.0.1", target)

    return HttpFetcher(FetchPolicy(resolve=resolver), open_tcp=open_tcp)


async def test_the_connection_goes_to_the_checked_address_not_a_second_lookup(
    servers: tuple[Server, Server],
) -> None:
    public, canary = servers
    resolver = RebindingResolver()
    fetcher = _fetcher(resolver, public, canary)
    try:
        page = await fetcher.fetch("http://rebind.test/page")
        assert (page.status, page.title, page.error) == (200, "Public", None)
        assert resolver.calls == ["rebind.test"]  # one lookup: the policy check's
        assert fetcher.backend.connected == [("rebind.test", PUBLIC_IP, 80)]
        assert public.hits == [("/page", "rebind.test")]  # Host header keeps the name
        again = await fetcher.fetch("http://rebind.test/page")  # now it answers 127.0.0.1
        assert again.error is not None and "127.0.0.1" in again.error
    finally:
        await fetcher.close()
    assert canary.hits == []


async def test_a_redirect_hop_is_checked_and_pinned_too(servers: tuple[Server, Server]) -> None:
    public, canary = servers
    public.redirect = "http://second.test/inside"
    resolver = RebindingResolver()  # second.test is looked up second: loopback
    fetcher = _fetcher(resolver, public, canary)
    try:
        page = await fetcher.fetch("http://rebind.test/hop")
    finally:
        await fetcher.close()
    assert page.error is not None and page.error.startswith("blocked:")
    assert resolver.calls == ["rebind.test", "second.test"]
    assert canary.hits == []


async def test_an_unchecked_name_cannot_be_dialled() -> None:
    with pytest.raises(httpcore.ConnectError):
        await PinnedBackend().connect_tcp("never-checked.test", 80)
