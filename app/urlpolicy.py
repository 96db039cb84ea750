"""Which URLs a task may open: shared by the API (start_url) and the browser pool (routing).

Pure policy plus name resolution; blocking answers are reason strings, never exceptions,
so callers decide whether a block is a 422, an aborted request or a guard event.
"""

from __future__ import annotations

import asyncio
import functools
import ipaddress
import re
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit

from app.settings import Settings

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
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
HOST_ENTRY = re.compile(r"(\*\.)?[a-z0-9_-]+(\.[a-z0-9_-]+)*")
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


def _unwrapped(addr: IPAddress) -> IPAddress:
    """The IPv4 address inside an IPv4-mapped or 6to4 IPv6 address, else the address."""
    if isinstance(addr, ipaddress.IPv6Address):
        inner = addr.ipv4_mapped or addr.sixtofour
        if inner is not None:
            return inner
    return addr


def is_metadata_address(addr: IPAddress) -> bool:
    return _unwrapped(addr) in METADATA_ADDRESSES


@dataclass(frozen=True)
class NetworkPolicy:
    """Which non-public destinations a deployment may reach (settings → one small object).

    Default: none. `allow_private` opens every private, loopback and link-local address;
    `hosts` (exact names, or `*.suffix`) and `networks` (CIDRs) open only those. Cloud
    metadata (addresses and host names) stays blocked in every mode unless named exactly:
    a metadata host by name, a metadata address as itself (a /32 or /128), never by a wider
    CIDR such as 169.254.0.0/16.
    """

    allow_private: bool = False
    hosts: frozenset[str] = frozenset()
    networks: tuple[IPNetwork, ...] = ()

    @classmethod
    def parse(cls, *, allow_private: bool, allowed_private_hosts: str = "") -> NetworkPolicy:
        """From settings: `ALLOWED_PRIVATE_HOSTS=intranet.local,*.corp,10.2.0.0/16,fd00::5`."""
        hosts: set[str] = set()
        networks: list[IPNetwork] = []
        for raw in allowed_private_hosts.split(","):
            entry = raw.strip().lower().rstrip(".")
            if not entry:
                continue
            literal = entry.replace("[", "").replace("]", "")
            if any(c in literal for c in "/:") or parse_ip_literal(literal) is not None:
                try:
                    networks.append(ipaddress.ip_network(literal, strict=False))
                except ValueError as exc:
                    raise ValueError(f"ALLOWED_PRIVATE_HOSTS entry {raw!r}: {exc}") from exc
                continue
            if not HOST_ENTRY.fullmatch(entry):
                raise ValueError(f"ALLOWED_PRIVATE_HOSTS entry {raw!r} is not a host name")
            hosts.add(entry)
        return cls(allow_private=allow_private, hosts=frozenset(hosts), networks=tuple(networks))

    def host_listed(self, host: str) -> bool:
        """The operator named this host (exactly, or under a `*.suffix` entry)."""
        if host in self.hosts:
            return True
        return any(h.startswith("*.") and host.endswith(h[1:]) for h in self.hosts)

    def _address_listed(self, addr: IPAddress) -> bool:
        candidates = {addr, _unwrapped(addr)}
        if is_metadata_address(addr):  # only an exact, single-address entry opens metadata
            return any(
                n.num_addresses == 1 and n.network_address in candidates for n in self.networks
            )
        return any(a.version == n.version and a in n for n in self.networks for a in candidates)

    def address_reason(self, addr: IPAddress, *, host_listed: bool = False) -> str | None:
        """Reason this deployment may not connect to `addr`, or None."""
        reason = address_blocked(addr)
        if reason is None or self._address_listed(addr):
            return None
        if is_metadata_address(addr):
            return reason
        if self.allow_private or host_listed:
            return None
        return reason

    def name_reason(self, host: str) -> str | None:
        """Checks on the name itself, before resolution: local and metadata host names."""
        if self.host_listed(host):
            return None
        if host in METADATA_HOSTS:
            return f"cloud metadata host {host}"
        if not self.allow_private and (host in LOCAL_NAMES or host.endswith(".localhost")):
            return f"local host name {host}"
        return None

    def resolved_reason(self, host: str, addresses: Sequence[str]) -> str | None:
        """Every address a name resolved to must be allowed."""
        listed = self.host_listed(host)
        if listed and host in METADATA_HOSTS:  # a metadata name the operator wrote out
            return None
        for text in addresses:
            addr = ipaddress.ip_address(text.split("%", 1)[0])
            reason = self.address_reason(addr, host_listed=listed)
            if reason:
                return f"host {host} resolves to {reason}"
        return None


DEFAULT_POLICY = NetworkPolicy()


def network_policy(settings: Settings) -> NetworkPolicy:
    """The deployment's policy from its settings (parsed once per distinct value)."""
    return _parsed(settings.allow_private_networks, settings.allowed_private_hosts)


@functools.lru_cache(maxsize=8)
def _parsed(allow_private: bool, hosts: str) -> NetworkPolicy:
    return NetworkPolicy.parse(allow_private=allow_private, allowed_private_hosts=hosts)


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


def _host_reason(host: str, resolve: Resolver, policy: NetworkPolicy) -> str | None:
    """Checks that need the host's addresses: every address must be allowed."""
    reason = policy.name_reason(host)
    if reason:
        return reason
    literal = parse_ip_literal(host)
    if literal is not None:
        return policy.address_reason(literal)
    try:
        addresses = resolve(host)
    except (OSError, UnicodeError) as exc:
        if policy.allow_private:  # the browser's own lookup fails too; nothing to protect
            return None
        return f"host {host} does not resolve: {exc}"
    if not addresses:
        return None if policy.allow_private else f"host {host} does not resolve"
    return policy.resolved_reason(host, addresses)


def check_url(
    url: str,
    *,
    policy: NetworkPolicy = DEFAULT_POLICY,
    allowed_domains: Sequence[str] = (),
    resolve: Resolver = system_resolve,
) -> str | None:
    """Reason the URL is blocked, or None. Resolves names (blocking): see check_url_async."""
    reason, host = _static_reason(url, allowed_domains)
    if reason:
        return reason
    return _host_reason(host, resolve, policy)


async def check_url_async(
    url: str,
    *,
    policy: NetworkPolicy = DEFAULT_POLICY,
    allowed_domains: Sequence[str] = (),
    resolve: Resolver = system_resolve,
) -> str | None:
    """check_url with name resolution on a worker thread so the event loop never blocks."""
    reason, host = _static_reason(url, allowed_domains)
    if reason:
        return reason
    return await asyncio.to_thread(_host_reason, host, resolve, policy)
