"""Plain HTTP fetching for the search route (seed 000 §4.2: "a search worker that uses HTTP
fetching only"), under the browser's egress policy.

Every hop is checked with app.urlpolicy before it is requested (scheme, allowlist, and, unless
private networks are allowed, that the host resolves only to public addresses), redirects
are followed by hand so each Location is checked too, and bodies are capped. HTML becomes
text (script, style and hidden blocks dropped); other text types pass through.

DNS pinning (issue 12, "connect to the checked address"): the name is resolved once, by the
policy check, and the connection goes to an address that check accepted (`PinnedBackend`),
never to a second lookup's answer, so a name that rebinds to a private address between the
check and the connect gains nothing. The URL keeps the name: the Host header, TLS SNI and
certificate verification are those of the name, as without pinning.
"""

from __future__ import annotations

import ssl
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from html.parser import HTMLParser
from typing import Any
from urllib.parse import urljoin, urlsplit

import httpcore
import httpx

from app.urlpolicy import (
    DEFAULT_POLICY,
    NetworkPolicy,
    Resolver,
    check_url_async,
    parse_ip_literal,
    system_resolve,
)
from workers.agent.protocols import FetchedPage

# (address, port) -> a connected stream; tests route public-looking addresses to local servers
OpenTcp = Callable[[str, int], Awaitable[httpcore.AsyncNetworkStream]]

MAX_REDIRECTS = 5
MAX_BYTES = 2_000_000
TIMEOUT_S = 20.0
_SKIPPED_TAGS = frozenset({"script", "style", "noscript", "template", "svg", "head"})
_BLOCK_TAGS = frozenset(
    {
        "p",
        "div",
        "br",
        "li",
        "tr",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "section",
        "article",
        "table",
        "ul",
        "ol",
        "header",
        "footer",
        "main",
        "nav",
        "dd",
        "dt",
        "title",
    }
)


@dataclass(frozen=True)
class FetchPolicy:
    network: NetworkPolicy = DEFAULT_POLICY  # the deployment's, as the browser pool uses it
    allowed_domains: Sequence[str] = ()
    user_agent: str = "webagent-search/1.0"
    resolve: Resolver = field(default=system_resolve, compare=False)


class PinnedBackend(httpcore.AsyncNetworkBackend):
    """Connects a host name only to the address its policy check accepted (fail closed)."""

    def __init__(self, open_tcp: OpenTcp | None = None) -> None:
        self._inner = httpcore.AnyIOBackend()
        self._open_tcp = open_tcp
        self.pins: dict[str, str] = {}
        self.connected: list[tuple[str, str, int]] = []  # (name, address, port)

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        address = self.pins.get(host.lower())
        if address is None:
            raise httpcore.ConnectError(f"{host} was not checked by the egress policy")
        self.connected.append((host, address, port))
        if self._open_tcp is not None:
            return await self._open_tcp(address, port)
        return await self._inner.connect_tcp(
            address,
            port,
            timeout=timeout,
            local_address=local_address,
            socket_options=socket_options,
        )

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[Any] | None = None
    ) -> httpcore.AsyncNetworkStream:
        raise httpcore.ConnectError("unix sockets are not reachable from the fetcher")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


class PinnedTransport(httpx.AsyncHTTPTransport):
    """httpx's own transport over a connection pool that dials through PinnedBackend."""

    def __init__(self, backend: PinnedBackend, ssl_context: ssl.SSLContext | None = None) -> None:
        super().__init__()
        self._pool = httpcore.AsyncConnectionPool(
            ssl_context=ssl_context or httpx.create_ssl_context(), network_backend=backend
        )


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.title = ""
        self._skip = 0
        self._in_title = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        if tag in _SKIPPED_TAGS or ("hidden", None) in attrs:
            self._skip += 1
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        if tag in _SKIPPED_TAGS and self._skip:
            self._skip -= 1
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        if not self._skip:
            self.parts.append(data)


def html_text(html: str) -> tuple[str, str]:
    """(title, visible text) of an HTML document, one block per line."""
    parser = _Text()
    parser.feed(html)
    lines = (" ".join(line.split()) for line in "".join(parser.parts).splitlines())
    return " ".join(parser.title.split()), "\n".join(line for line in lines if line)


class HttpFetcher:
    """Fetcher protocol over httpx; one client per fetcher. Without a `transport` (tests pass
    a mock) connections are pinned to the checked addresses (`backend`)."""

    def __init__(
        self,
        policy: FetchPolicy,
        transport: httpx.AsyncBaseTransport | None = None,
        *,
        open_tcp: OpenTcp | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ):
        self.policy = policy
        self.backend = PinnedBackend(open_tcp)
        if transport is None:
            transport = PinnedTransport(self.backend, ssl_context)
        self._client = httpx.AsyncClient(
            follow_redirects=False,
            timeout=TIMEOUT_S,
            headers={"User-Agent": policy.user_agent},
            transport=transport,
            trust_env=False,  # no ambient proxies: the policy check must see the real target
        )

    async def close(self) -> None:
        await self._client.aclose()

    async def fetch(self, url: str) -> FetchedPage:
        for _ in range(MAX_REDIRECTS + 1):
            blocked = await self._check_and_pin(url)
            if blocked:
                return FetchedPage(url, 0, error=f"blocked: {blocked}")
            try:
                response = await self._get(url)
            except httpx.HTTPError as exc:
                return FetchedPage(url, 0, error=f"network: {type(exc).__name__}: {exc}")
            if response.is_redirect and "location" in response.headers:
                url = urljoin(url, response.headers["location"])
                continue
            return _page(url, response)
        return FetchedPage(url, 0, error="too many redirects")

    async def _check_and_pin(self, url: str) -> str | None:
        """The policy check resolves the name once; the connection may only use what that
        lookup returned (an IP literal is its own address)."""
        answered: list[str] = []

        def resolve(host: str) -> list[str]:
            addresses = self.policy.resolve(host)
            answered.extend(addresses)
            return addresses

        blocked = await check_url_async(
            url,
            policy=self.policy.network,
            allowed_domains=self.policy.allowed_domains,
            resolve=resolve,
        )
        if blocked:
            return blocked
        host = (urlsplit(url).hostname or "").rstrip(".").lower()
        literal = parse_ip_literal(host)
        address = str(literal) if literal is not None else next(iter(answered), None)
        if address is None:
            return f"host {host} does not resolve"
        self.backend.pins[host] = address
        return None

    async def _get(self, url: str) -> httpx.Response:
        async with self._client.stream("GET", url) as response:
            body = b""
            async for chunk in response.aiter_bytes():
                body += chunk
                if len(body) > MAX_BYTES:
                    break
            return httpx.Response(
                response.status_code, headers=response.headers, content=body[:MAX_BYTES]
            )


def _page(url: str, response: httpx.Response) -> FetchedPage:
    kind = response.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if response.status_code >= 400:
        return FetchedPage(url, response.status_code, error=f"HTTP {response.status_code}")
    if kind not in ("text/html", "application/xhtml+xml", "text/plain", ""):
        return FetchedPage(url, response.status_code, error=f"not text: {kind}")
    text = response.text
    if kind == "text/plain":
        return FetchedPage(url, response.status_code, "", text)
    title, body = html_text(text)
    return FetchedPage(url, response.status_code, title, body)
