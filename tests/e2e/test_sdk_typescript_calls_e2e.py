"""clients/typescript beyond submit/get/list/events/cancel (issue 37 item 3), the same calls
tests/e2e/test_sdk_calls_e2e.py checks for clients/python, each against the running
service: approvals (list/approve/deny), artifacts (list/download), the ledger, delete,
domains (get/forget), guides, the list's `q`, `result.data` through the caller's parser
(`waitTyped`, `dataAs`) and events narrowed to their type (`isEvent`).

The driver (clients/typescript/test/calls.ts) prints a cue when the challenge page must be
solved or shown again; this test flips the site and answers on the driver's stdin."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Service
from tests.e2e.test_approvals_e2e import MEMBERS, Site, site  # noqa: F401 (fixture)
from tests.e2e.test_sdk_calls_e2e import TYPED, typed_route  # noqa: F401 (fixture)
from tests.e2e.test_sdk_typescript_e2e import CLIENT, _node, compiled  # noqa: F401 (fixture)
from tests.support.sites import TestSite, cheapest

pytestmark = [
    pytest.mark.browser,
    pytest.mark.services,
    pytest.mark.parametrize("service", ["embedded"], indirect=True),
]


def _drive(args: list[str], site: Site) -> dict[str, Any]:  # noqa: F811
    """Run the driver, flipping the site at its cues; its last line is the report."""
    with subprocess.Popen(
        args, cwd=CLIENT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    ) as driver:
        assert driver.stdin is not None and driver.stdout is not None
        report: dict[str, Any] = {}
        for line in driver.stdout:
            message = json.loads(line)
            if "cue" in message:
                site.solved = message["cue"] == "solve"
                driver.stdin.write("go\n")
                driver.stdin.flush()
            else:
                report = message
        assert driver.wait(timeout=240) == 0, report
    return report


def test_typescript_client_calls(
    service: Service,
    site: Site,  # noqa: F811
    e2e_site: TestSite,
    typed_route: Any,  # noqa: F811
    compiled: Path,  # noqa: F811
) -> None:
    site.solved = False
    driver = compiled / "test" / "calls.js"
    shop = e2e_site.url("/shop")
    args = [_node(), str(driver), service.base_url, f"{site.url}/protected", shop, MEMBERS, TYPED]
    report = _drive(args, site)

    approved = report["approved"]
    assert (approved["decided"], approved["status"]) == ("approved", "succeeded"), approved
    assert {"approval", "screenshot"} <= set(approved["kinds"])
    assert approved["bytes"] in ([0xFF, 0xD8], [0x89, 0x50])  # JPEG or PNG, its whole size
    assert approved["found"] and approved["ledger"] and approved["calls"]
    assert approved["noData"] == "NoDataError"  # no output_schema: no data to type
    assert approved["gone"] == {"status": 404, "code": "not_found"}  # deleted
    not_live = {"status": 409, "code": "conflict"}
    assert report["denied"] == {
        "decided": "denied",
        "status": "failed",
        "error": "bot_blocked",
        "live": [not_live, not_live, not_live],  # takeOver, sendInput, handBack: routes found
    }
    typed = report["typed"]
    assert typed["status"] == "succeeded"
    assert typed["data"] == {"name": cheapest().name, "price": cheapest().price}
    assert typed["misfit"] == "does not fit"  # the caller's parser decides
    domains = report["domains"]
    assert domains["domain"] == "127.0.0.1" and domains["removedAll"] and domains["guides"]
    assert domains["after"] == {"status": 404, "code": "not_found"}
