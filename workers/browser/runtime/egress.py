"""Private-network guard at connect time: a local SOCKS5 proxy every task context uses.

Playwright's route() never sees redirect hops (a public page answering 302 to
http://169.254.169.254/ is followed unchecked), and Chromium resolves names itself, so a
name may resolve differently for the check and for the fetch. Behind this proxy every
connection (any redirect hop, popup, worker, WebSocket) is made by us, to an address we
resolved and checked ourselves.

One proxy per browser context: it also pins the context's task to its `allowed_domains`
(seed 000 §6.5) for every request type — subresources, fetch/XHR and their redirect hops,
beacons, EventSource, workers, WebSockets — because every one of them is a connection here.
A proxy not yet bound to a task (a spare context) refuses everything.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import socket
import struct
from collections import deque
from collections.abc import Awaitable, Callable

from app.urlpolicy import (
    DEFAULT_POLICY,
    NetworkPolicy,
    Resolver,
    domain_allowed,
    parse_ip_literal,
    system_resolve,
)

log = logging.getLogger(__name__)

Connector = Callable[[str, int], Awaitable[tuple[asyncio.StreamReader, asyncio.StreamWriter]]]

SOCKS_VERSION = 5
NO_AUTH = 0
CMD_CONNECT = 1
ATYP_IPV4, ATYP_DOMAIN, ATYP_IPV6 = 1, 3, 4
REPLY_OK, REPLY_FAILURE, REPLY_NOT_ALLOWED, REPLY_UNREACHABLE = 0, 1, 2, 4
REPLY_CMD_UNSUPPORTED = 7
CONNECT_TIMEOUT_S = 30.0
CHUNK = 64 * 1024
REFUSALS_KEPT = 200


class Refused(Exception):
    """A connection the policy (or the network) will not make; carries the SOCKS reply code."""

    def __init__(self, code: int, reason: str) -> None:
        super().__init__(reason)
        self.code = code


async def open_direct(host: str, port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Connect to the checked address itself (never re-resolved)."""
    return await asyncio.open_connection(host, port)


UNBOUND = None


class EgressProxy:
    """SOCKS5 (CONNECT, no auth) on 127.0.0.1 that refuses destinations the policy forbids.

    `allowed_domains`: () allows any host the network policy allows; a list pins to it;
    UNBOUND (None) refuses every connection until a task binds the proxy.
    """

    def __init__(
        self,
        *,
        policy: NetworkPolicy = DEFAULT_POLICY,
        resolve: Resolver = system_resolve,
        connect: Connector = open_direct,
        allowed_domains: tuple[str, ...] | None = (),
    ) -> None:
        self.policy = policy
        self.resolve = resolve
        self.connect = connect
        self.allowed_domains = allowed_domains
        # the latest refusals, for tests and debugging; bounded in a long-lived worker
        self.refused: deque[tuple[str, str]] = deque(maxlen=REFUSALS_KEPT)
        self._server: asyncio.Server | None = None
        self._port = 0

    @property
    def server(self) -> str:
        """Proxy address for Playwright's `proxy={"server": ...}`."""
        return f"socks5://127.0.0.1:{self._port}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self._port = self._server.sockets[0].getsockname()[1]

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None

    def bind(self, allowed_domains: tuple[str, ...]) -> None:
        """Serve one task: () for any permitted host, else only hosts under these domains."""
        self.allowed_domains = tuple(allowed_domains)

    async def address_for(self, host: str) -> str:
        """The one checked address we will connect to; Refused when the policy forbids it."""
        host = host.rstrip(".").lower()
        if self.allowed_domains is UNBOUND:
            raise Refused(REPLY_NOT_ALLOWED, f"{host}: no task is bound to this context")
        if self.allowed_domains and not domain_allowed(host.strip("[]"), self.allowed_domains):
            raise Refused(REPLY_NOT_ALLOWED, f"host {host} is outside the allowed domains")
        reason = self.policy.name_reason(host)
        if reason:
            raise Refused(REPLY_NOT_ALLOWED, reason)
        literal = parse_ip_literal(host)
        if literal is not None:
            reason = self.policy.address_reason(literal)
            if reason:
                raise Refused(REPLY_NOT_ALLOWED, reason)
            return str(literal)
        try:
            addresses = await asyncio.to_thread(self.resolve, host)
        except (OSError, UnicodeError) as exc:
            raise Refused(REPLY_UNREACHABLE, f"host {host} does not resolve: {exc}") from exc
        if not addresses:
            raise Refused(REPLY_UNREACHABLE, f"host {host} does not resolve")
        reason = self.policy.resolved_reason(host, addresses)
        if reason:
            raise Refused(REPLY_NOT_ALLOWED, reason)
        return addresses[0].split("%", 1)[0]

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        host = ""
        try:
            host, port = await _negotiate(reader, writer)
            upstream = await self._dial(host, port)
        except Refused as exc:
            self.refused.append((host, str(exc)))
            log.info("egress refused: %s", exc)
            await _reply(writer, exc.code)
            await _close(writer)
            return
        except (OSError, asyncio.IncompleteReadError, ValueError):
            await _close(writer)
            return
        await _reply(writer, REPLY_OK)
        up_reader, up_writer = upstream
        await asyncio.gather(_pipe(reader, up_writer), _pipe(up_reader, writer))

    async def _dial(
        self, host: str, port: int
    ) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        address = await self.address_for(host)
        try:
            return await asyncio.wait_for(self.connect(address, port), CONNECT_TIMEOUT_S)
        except (OSError, TimeoutError) as exc:
            raise Refused(REPLY_UNREACHABLE, f"{host}:{port} unreachable: {exc}") from exc


async def _negotiate(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> tuple[str, int]:
    """SOCKS5 greeting and CONNECT request (RFC 1928); returns the requested host and port."""
    version, count = await reader.readexactly(2)
    methods = await reader.readexactly(count)
    if version != SOCKS_VERSION or NO_AUTH not in methods:
        writer.write(bytes([SOCKS_VERSION, 0xFF]))
        raise ValueError("unsupported SOCKS greeting")
    writer.write(bytes([SOCKS_VERSION, NO_AUTH]))
    version, cmd, _, atyp = await reader.readexactly(4)
    if atyp == ATYP_IPV4:
        host = socket.inet_ntop(socket.AF_INET, await reader.readexactly(4))
    elif atyp == ATYP_IPV6:
        host = socket.inet_ntop(socket.AF_INET6, await reader.readexactly(16))
    elif atyp == ATYP_DOMAIN:
        (length,) = await reader.readexactly(1)
        host = (await reader.readexactly(length)).decode("idna")
    else:
        raise Refused(REPLY_FAILURE, "unknown address type")
    (port,) = struct.unpack("!H", await reader.readexactly(2))
    if version != SOCKS_VERSION or cmd != CMD_CONNECT:
        raise Refused(REPLY_CMD_UNSUPPORTED, f"{host} unsupported SOCKS command {cmd}")
    return host, port


async def _reply(writer: asyncio.StreamWriter, code: int) -> None:
    with contextlib.suppress(OSError):
        writer.write(bytes([SOCKS_VERSION, code, 0, ATYP_IPV4, 0, 0, 0, 0, 0, 0]))
        await writer.drain()


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(CHUNK):
            writer.write(data)
            await writer.drain()
    except OSError:
        pass
    finally:
        await _close(writer)


async def _close(writer: asyncio.StreamWriter) -> None:
    with contextlib.suppress(OSError):
        writer.close()
        await writer.wait_closed()
