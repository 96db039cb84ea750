"""Submit-time policy per deployment mode: defaults, an operator allowlist, allow-all-private.

The same 40-odd start URLs the issue measured; metadata is refused in every mode.
"""

from __future__ import annotations

import httpx
import pytest

from app.main import create_app
from tests.integration.api.conftest import RecordingDispatcher, make_settings, running

METADATA = [
    "http://169.254.169.254/latest/meta-data/",
    "http://[::ffff:169.254.169.254]/",
    "http://2852039166/",
    "http://0xa9.0xfe.0xa9.0xfe/",
    "http://169.254.170.2/v2/credentials",
    "http://100.100.100.200/",
    "http://[fd00:ec2::254]/",
    "http://metadata.google.internal/computeMetadata/v1/",
    "http://METADATA.GOOGLE.INTERNAL./",
    "http://metadata/",
]
PRIVATE = [
    "http://127.0.0.1:8000/",
    "http://127.1/",
    "http://0177.0.0.1/",
    "http://2130706433/",
    "http://[::1]/",
    "http://localhost/",
    "http://app.localhost/",
    "http://10.3.0.1/",
    "http://192.168.1.1/",
    "http://172.16.0.1/",
    "http://100.64.0.1/",
    "http://[fe80::1]/",
    "http://[fc00::1]/",
    "http://0.0.0.0/",
]
LISTED = ["http://10.2.3.4/", "http://10.2.255.1:8080/x"]


async def _statuses(db_url: str, urls: list[str], **settings: object) -> dict[str, int]:
    app = create_app(make_settings(db_url, **settings), dispatcher=RecordingDispatcher())
    async with running(app) as client:
        out = {}
        for url in urls:
            resp: httpx.Response = await client.post(
                "/v1/tasks", json={"instruction": "go", "start_url": url}
            )
            if resp.status_code == 422:
                assert resp.json()["errors"][0]["loc"] == ["body", "start_url"]
            out[url] = resp.status_code
        return out


async def test_defaults_refuse_every_private_and_metadata_url(db_url: str) -> None:
    got = await _statuses(db_url, METADATA + PRIVATE + LISTED)
    assert set(got.values()) == {422}, got


async def test_operator_allowlist_opens_only_what_it_names(db_url: str) -> None:
    got = await _statuses(
        db_url, METADATA + PRIVATE + LISTED, allowed_private_hosts="10.2.0.0/16,169.254.0.0/16"
    )
    assert {u for u, code in got.items() if code == 202} == set(LISTED), got
    assert {code for u, code in got.items() if u not in LISTED} == {422}


@pytest.mark.parametrize("url", METADATA)
async def test_allow_private_networks_keeps_metadata_blocked(db_url: str, url: str) -> None:
    got = await _statuses(db_url, [url, *PRIVATE[:3]], allow_private_networks=True)
    assert got[url] == 422
    assert [got[u] for u in PRIVATE[:3]] == [202, 202, 202]


async def test_malformed_allowlist_stops_the_service(db_url: str) -> None:
    with pytest.raises(ValueError, match="ALLOWED_PRIVATE_HOSTS"):
        create_app(make_settings(db_url, allowed_private_hosts="10.0.0.0/40"))
