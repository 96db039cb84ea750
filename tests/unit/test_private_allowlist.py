"""ALLOWED_PRIVATE_HOSTS: the operator's host/CIDR allowlist opens only what it names.

Every other private address stays blocked, and cloud metadata stays blocked in every mode
(ALLOW_PRIVATE_NETWORKS=true included) unless named exactly.
"""

from __future__ import annotations

import pytest

from app.urlpolicy import NetworkPolicy, check_url


def table(entries: dict[str, list[str]]):
    def resolve(host: str) -> list[str]:
        if host not in entries:
            raise OSError(f"unknown host {host}")
        return entries[host]

    return resolve


DNS = table(
    {
        "intranet.local": ["10.9.9.9"],
        "wiki.corp.example": ["10.7.0.3"],
        "other.local": ["10.9.9.10"],
        "sneaky.local": ["169.254.169.254"],
        "public.example": ["93.184.215.14"],
        "metadata.google.internal": ["169.254.169.254"],
    }
)
LISTED = NetworkPolicy.parse(
    allow_private=False,
    allowed_private_hosts="intranet.local, *.corp.example, 10.2.0.0/16, [fd12::]/64,"
    " 169.254.0.0/16",
)

# the corpus of private and metadata targets a listed deployment must still refuse
STILL_BLOCKED = [
    "http://127.0.0.1:8000/",
    "http://localhost/",
    "http://10.3.0.1/",
    "http://192.168.1.1/",
    "http://other.local/",
    "http://sneaky.local/",  # a listed-looking name resolving to metadata
    "http://169.254.169.254/latest/meta-data/",
    "http://[::ffff:169.254.169.254]/",
    "http://2852039166/",  # 169.254.169.254 as one integer
    "http://169.254.170.2/v2/credentials",
    "http://[fd00:ec2::254]/",
    "http://100.100.100.200/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://metadata/",
    "http://[::1]/",
    "http://[fd13::1]/",
]


@pytest.mark.parametrize(
    "url",
    [
        "http://intranet.local/",
        "http://wiki.corp.example:8080/page",
        "http://10.2.3.4/",
        "http://[fd12::5]/",
        "http://169.254.1.1/",  # link-local inside the listed CIDR
        "http://public.example/",
    ],
)
def test_listed_private_hosts_and_networks_are_reachable(url: str) -> None:
    assert check_url(url, policy=LISTED, resolve=DNS) is None


@pytest.mark.parametrize("url", STILL_BLOCKED)
def test_everything_else_private_stays_blocked(url: str) -> None:
    assert check_url(url, policy=LISTED, resolve=DNS) is not None


@pytest.mark.parametrize(
    "url",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://[::ffff:169.254.169.254]/",
        "http://[fd00:ec2::254]/",
        "http://metadata.google.internal/",
        "http://sneaky.local/",
    ],
)
def test_allow_private_networks_still_blocks_metadata(url: str) -> None:
    policy = NetworkPolicy.parse(allow_private=True)
    assert check_url(url, policy=policy, resolve=DNS) is not None
    assert check_url("http://10.3.0.1/", policy=policy, resolve=DNS) is None
    assert check_url("http://localhost:8000/", policy=policy, resolve=DNS) is None


def test_metadata_is_reachable_only_when_named_exactly() -> None:
    named = NetworkPolicy.parse(
        allow_private=False, allowed_private_hosts="169.254.169.254,metadata.google.internal"
    )
    by_name = NetworkPolicy.parse(
        allow_private=True, allowed_private_hosts="metadata.google.internal"
    )
    assert check_url("http://metadata.google.internal/", policy=by_name, resolve=DNS) is None
    assert check_url("http://169.254.169.254/", policy=by_name, resolve=DNS) is not None
    assert check_url("http://169.254.169.254/", policy=named, resolve=DNS) is None
    assert check_url("http://metadata.google.internal/", policy=named, resolve=DNS) is None
    assert check_url("http://[fd00:ec2::254]/", policy=named, resolve=DNS) is not None
    assert check_url("http://169.254.170.2/", policy=named, resolve=DNS) is not None


@pytest.mark.parametrize("raw", ["10.0.0.0/33", "fd00::/200", "bad..name", "*."])
def test_malformed_entries_are_refused_at_start(raw: str) -> None:
    with pytest.raises(ValueError, match="ALLOWED_PRIVATE_HOSTS"):
        NetworkPolicy.parse(allow_private=False, allowed_private_hosts=raw)
