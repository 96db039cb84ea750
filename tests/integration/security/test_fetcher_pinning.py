"""The search route's fetcher connects to the address its policy check accepted (no DNS
rebinding window): workers/adapters/fetcher.py PinnedBackend."""

from __future__ import annotations

import ssl
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpcore
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from workers.adapters.fetcher import FetchPolicy, HttpFetcher, PinnedBackend

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


def _self_signed(tmp: Path, name: str) -> tuple[Path, Path]:
    """A certificate for `name` (its own CA) and its key, as PEM files."""
    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.now(UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp / "cert.pem", tmp / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return cert_path, key_path


async def test_tls_keeps_the_names_sni_and_certificate_on_the_pinned_address(
    servers: tuple[Server, Server], tmp_path: Path
) -> None:
    public, canary = servers
    cert, key = _self_signed(tmp_path, "rebind.test")
    server_tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_tls.load_cert_chain(cert, key)
    sni: list[str | None] = []
    server_tls.sni_callback = lambda sock, name, ctx: sni.append(name)  # type: ignore[assignment,misc]
    httpd = _serve(public)
    httpd.socket = server_tls.wrap_socket(httpd.socket, server_side=True)
    public.port = httpd.server_address[1]
    client_tls = ssl.create_default_context(cafile=str(cert))
    resolver = RebindingResolver()
    backend = httpcore.AnyIOBackend()

    async def open_tcp(address: str, port: int) -> httpcore.AsyncNetworkStream:
        assert address == PUBLIC_IP  # the checked address, never a second lookup
        return await backend.connect_tcp("127.0.0.1", public.port)

    fetcher = HttpFetcher(FetchPolicy(resolve=resolver), open_tcp=open_tcp, ssl_context=client_tls)
    try:
        page = await fetcher.fetch("https://rebind.test/secure")
    finally:
        await fetcher.close()
        httpd.shutdown()
        httpd.server_close()
    assert (page.status, page.error) == (200, None)  # certificate verified for the name
    assert sni == ["rebind.test"]
    assert ("/secure", "rebind.test") in public.hits and canary.hits == []
