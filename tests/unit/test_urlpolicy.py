"""URL policy: schemes, private/metadata addresses in every spelling, allowlists, resolution."""

from __future__ import annotations

import pytest

from app.urlpolicy import (
    NetworkPolicy,
    check_url,
    check_url_async,
    domain_allowed,
    domain_of,
    parse_ip_literal,
)

CLOSED = NetworkPolicy()
OPEN = NetworkPolicy(allow_private=True)
METADATA = {
    "http://169.254.169.254/latest/meta-data/",
    "http://[fd00:ec2::254]/",
    "http://metadata.google.internal/computeMetadata/v1/",
}


def fixed(table: dict[str, list[str]]):
    def resolve(host: str) -> list[str]:
        if host not in table:
            raise OSError(f"unknown host {host}")
        return table[host]

    return resolve


PUBLIC = fixed({"example.com": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"]})


@pytest.mark.parametrize(
    "url",
    ["ftp://example.com/", "file:///etc/passwd", "javascript:alert(1)", "data:text/html,hi", "x"],
)
def test_non_http_schemes_are_blocked_even_when_private_allowed(url: str) -> None:
    reason = check_url(url, policy=OPEN)
    assert reason is not None and "scheme" in reason


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/",
        "http://10.0.0.5:8080/x",
        "http://192.168.1.1/",
        "http://172.16.3.4/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/",
        "http://[fd00:ec2::254]/",
        "http://[fe80::1]/",
        "http://[::ffff:127.0.0.1]/",
        "http://0.0.0.0/",
        "http://224.0.0.1/",
        "http://2130706433/",
        "http://0177.0.0.1/",
        "http://0x7f.0.0.1/",
        "http://127.1/",
        "http://localhost:8000/",
        "http://app.localhost/",
        "http://metadata.google.internal/computeMetadata/v1/",
        "http://100.64.0.1/",
        "http://240.0.0.1/",
    ],
)
def test_private_and_special_addresses_are_blocked(url: str) -> None:
    assert check_url(url, policy=CLOSED, resolve=PUBLIC) is not None
    # ALLOW_PRIVATE_NETWORKS opens private ranges, never cloud metadata
    opened = check_url(url, policy=OPEN, resolve=PUBLIC)
    assert (opened is not None) == (url in METADATA), opened


def test_public_host_passes_when_all_addresses_are_public() -> None:
    assert check_url("https://example.com/path?q=1", policy=CLOSED, resolve=PUBLIC) is None
    assert check_url("http://93.184.215.14/", policy=CLOSED) is None


def test_host_with_any_private_address_is_blocked() -> None:
    resolve = fixed({"rebind.test": ["93.184.215.14", "10.1.2.3"]})
    reason = check_url("http://rebind.test/", policy=CLOSED, resolve=resolve)
    assert reason is not None and "10.1.2.3" in reason


def test_unresolvable_host_is_blocked() -> None:
    reason = check_url("http://nowhere.invalid/", policy=CLOSED, resolve=PUBLIC)
    assert reason is not None and "resolve" in reason


def test_allowlist_suffix_match_on_dot_boundary() -> None:
    allowed = ["example.com"]
    ok = check_url("https://shop.example.com/", policy=OPEN, allowed_domains=allowed)
    assert ok is None
    assert check_url("https://example.com/", policy=OPEN, allowed_domains=allowed) is None
    bad = check_url("https://badexample.com/", policy=OPEN, allowed_domains=allowed)
    assert bad is not None and "allowed domains" in bad
    assert domain_allowed("EXAMPLE.com.", ["*.example.com"])
    assert not domain_allowed("example.org", ["example.com", ""])


def test_malformed_urls() -> None:
    assert check_url("http:///nohost", policy=OPEN) is not None
    assert check_url("http://example.com:99999/", policy=OPEN) is not None


def test_domain_of() -> None:
    assert domain_of("https://User@Shop.Example.COM.:8443/a") == "shop.example.com"
    assert domain_of("http://[::1]:80/") == "::1"
    assert domain_of("not a url") == ""


def test_parse_ip_literal_forms() -> None:
    assert str(parse_ip_literal("2130706433")) == "127.0.0.1"
    assert str(parse_ip_literal("0x7f000001")) == "127.0.0.1"
    assert str(parse_ip_literal("[::1]")) == "::1"
    assert parse_ip_literal("example.com") is None


async def test_async_variant_matches_sync() -> None:
    resolve = fixed({"intranet.test": ["10.0.0.1"], "example.com": ["93.184.215.14"]})
    blocked = await check_url_async("http://intranet.test/", policy=CLOSED, resolve=resolve)
    assert blocked is not None
    fine = await check_url_async("http://example.com/", policy=CLOSED, resolve=resolve)
    assert fine is None
