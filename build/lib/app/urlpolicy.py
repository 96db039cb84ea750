"""Which URLs a task may open: shared by the API (start_url) and the browser pool (routing).

Pure policy plus name resolution; blocking answers are reason strings, never exceptions,
so callers decide whether a block is a 422, an aborted request or a guard event.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from collections.abc import Callable, Sequence
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str], list[str]]

ALLOWED_SCHEMES = frozenset({"http", "https"})
METADATA_HOSTS = frozenset(
    {"metadata.google.internal", "metadata.goog", "metadata", "instance-data"}
)
METADATA_ADDRESSES = frozenset(
    {
        ipaddress.ip_address("169.254.169.254"),
        ipaddress.ip_address("169.254.170.2"),
        ipaddress.ip_address("100.100.100.200"),
        ipaddress.ip_address("fd00:ec2::254"),
    }
)
LOCAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})


def domain_of(url: str) -> str:
    """Lower-cased host of a URL without port, brackets or trailing dot ('' when absent)."""
    try:
        host = urlsplit(url.strip()).hostname or ""
    except ValueError:
        return ""
    return host.rstrip(".").lower()


def domain_allowed(host: str, allowed_domains: Sequence[str]) -> bool:
    """Suffix match on a dot boundary: example.com admits a.example.com, not badexample.com."""
    host = host.rstrip(".").lower()
    for raw in allowed_domains:
        domain = raw.strip().lstrip("*").lstrip(".").rstrip(".").lower()
        if domain and (host == domain or host.endswith("." + domain)):
            return True
    return False


def parse_ip_literal(host: str) -> IPAddress | None:
    """IP literal in any form browsers accept: dotted, decimal, octal, hex, short IPv4; IPv6."""
    host = host.strip("[]")
    try:
        return ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        pass
    if ":" in host:
        return None
    try:
        # inet_aton implements the classic BSD forms: 2130706433, 0177.0.0.1, 0x7f.1, 127.1
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


def address_blocked(addr: IPAddress) -> str | None:
    """Reason an address is not on the public internet, or None when it is."""
    if isinstance(addr, ipaddress.IPv6Address):
        mapped = addr.ipv4_mapped or addr.sixtofour
        if mapped is not None:
            return address_blocked(mapped)
    if addr in METADATA_ADDRESSES:
        return f"cloud metadata address {addr}"
    checks = (
        ("loopback", addr.is_loopback),
        ("link-local", addr.is_link_local),
        ("multicast", addr.is_multicast),
        ("unspecified", addr.is_unspecified),
        ("reserved", addr.is_reserved),
        ("private", addr.is_private),
        ("non-global", not addr.is_global),
    )
    for label, hit in checks:
        if hit:
            return f"{label} address {addr}"
    return None


def system_resolve(host: str) -> list[str]:
    """All addresses the OS resolver returns for `host` (raises OSError when it fails)."""
    infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    return sorted({str(info[4][0]) for info in infos})


def _static_reason(url: str, allowed_domains: Sequence[str]) -> tuple[str | None, str]:
    """Checks that need no DNS: scheme, host presence, allowlist. Returns (reason, host)."""
    try:
        parts = urlsplit(url.strip())
        host = parts.hostname
        _ = parts.port  # raises ValueError on a malformed port
    except ValueError as exc:
        return f"malformed URL: {exc}", ""
    scheme = parts.scheme.lower()
    if scheme not in ALLOWED_SCHEMES:
        return f"scheme {scheme or '(none)'!r} is not allowed (http/https only)", ""
    if not host:
        return "URL has no host", ""
    host = host.rstrip(".").lower()
    if allowed_domains and not domain_allowed(host, allowed_domains):
        return f"host {host} is outside the allowed domains", host
    return None, host


def _host_reason(host: str, resolve: Resolver) -> str | None:
    """Checks that need the host's addresses: every address must be public."""
    if host in LOCAL_NAMES or host.endswith(".localhost"):
        return f"local host name {host}"
    if host in METADATA_HOSTS:
        return f"cloud metadata host {host}"
    literal = parse_ip_literal(host)
    if literal is not None:
        return address_blocked(literal)
    try:
        addresses = resolve(host)
    except (OSError, UnicodeError) as exc:
        return f"host {host} does not resolve: {exc}"
    if not addresses:
        return f"host {host} does not resolve"
    for text in addresses:
        reason = address_blocked(ipaddress.ip_address(text.split("%", 1)[0]))
        if reason:
            return f"host {host} resolves to {reason}"
    return None


def check_url(
    url: str,
    *,
    allow_private: bool,
    allowed_domains: Sequence[str] = (),
    resolve: Resolver = system_resolve,
) -> str | None:
    """Reason the URL is blocked, or None. Resolves names (blocking): see check_url_async."""
    reason, host = _static_reason(url, allowed_domains)
    if reason or allow_private:
        return reason
    return _host_reason(host, resolve)


async def check_url_async(
    url: str,
    *,
    allow_private: bool,
    allowed_domains: Sequence[str] = (),
    resolve: Resolver = system_resolve,
) -> str | None:
    """check_url with name resolution on a worker thread so the event loop never blocks."""
    reason, host = _static_reason(url, allowed_domains)
    if reason or allow_private:
        return reason
    return await asyncio.to_thread(_host_reason, host, resolve)
