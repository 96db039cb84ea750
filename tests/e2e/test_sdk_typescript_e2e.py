"""clients/typescript: its types are openapi-typescript's output for docs/openapi.json, and the
client (compiled by tsc, run by node) drives a shop task end to end against the running
service, resuming its event stream with Last-Event-ID. Without node these skip, unless
WEBAGENT_REQUIRE_SERVICES=1 (then they fail)."""

from __future__ import annotations

import json
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import unavailable
from tests.e2e.conftest import SHOP, Service
from tests.support.sites import TestSite, cheapest

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "typescript"
FIRST_PART = 3


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        unavailable("node", "not on PATH (the TypeScript client needs Node.js 20)")
    assert node is not None
    if not (CLIENT / "node_modules" / ".bin" / "tsc").exists():
        pytest.fail("clients/typescript/node_modules missing: run `make setup`", pytrace=False)
    return node


def _run(args: list[str], timeout: float = 300) -> str:
    done = subprocess.run(
        args, cwd=CLIENT, capture_output=True, text=True, timeout=timeout, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The client and its e2e driver compiled by tsc into a temporary folder."""
    node = _node()
    out = tmp_path_factory.mktemp("ts-client")
    _run([node, "node_modules/.bin/tsc", "-p", "tsconfig.json", "--outDir", str(out)])
    (out / "package.json").write_text('{"type": "module"}')  # the output is ES modules
    yield out


def test_types_are_the_generators_output_for_the_openapi_document(tmp_path: Path) -> None:
    node = _node()
    script = json.loads((CLIENT / "package.json").read_text())["scripts"]["generate"]
    args = shlex.split(script)
    assert args[0] == "openapi-typescript" and args[-2] == "-o"
    fresh = tmp_path / "schema.ts"
    _run([node, "node_modules/.bin/openapi-typescript", *args[1:-1], str(fresh)])
    committed = (CLIENT / args[-1]).read_text()
    assert fresh.read_text() == committed, "schema.ts is stale: run `make client-models`"


@pytest.mark.browser
@pytest.mark.services
@pytest.mark.parametrize("service", ["embedded"], indirect=True)
def test_typescript_client_runs_a_task_and_resumes_its_events(
    service: Service, e2e_site: TestSite, compiled: Path
) -> None:
    node = _node()
    driver = compiled / "test" / "e2e.js"
    out = _run([node, str(driver), service.base_url, e2e_site.url("/shop"), SHOP], timeout=180)
    report: dict[str, Any] = json.loads(out)
    first, rest, full = report["first"], report["rest"], report["full"]
    assert len(first) == FIRST_PART
    assert first + rest == full  # resumed after the first part: nothing repeated or missed
    assert [seq for seq, _ in full] == list(range(1, len(full) + 1))
    assert full[-1][1] == "task.finished"
    assert report["status"] == "succeeded"
    assert report["answer"] == f"{cheapest().name} at {cheapest().price}"
    assert report["steps"][0] == "navigate" and report["steps"][-1] == "done"
    assert report["listed"] is True and report["profiles"] == [True, False]
    assert report["conflict"] == {"status": 409, "code": "conflict"}  # cancel a finished task
    instance = "/v1/tasks/no-such-task"
    assert report["missing"] == {"status": 404, "code": "not_found", "instance": instance}
    invalid = {"status": 422, "code": "validation_failed", "locs": [["body", "name"]]}
    assert report["invalid"] == invalid


PACKED_DRIVER = """
import { WebAgentClient } from "webagent-client";
const [baseUrl, startUrl, instruction] = process.argv.slice(2);
const client = new WebAgentClient(baseUrl);
const task = await client.submitTask({ instruction, start_url: startUrl });
const done = await client.waitTask(task.id, { timeoutMs: 60000 });
console.log(JSON.stringify({ status: done.status, answer: done.result?.answer ?? null }));
"""


@pytest.fixture(scope="module")
def packed_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Issue 37 item 3: the package as `npm pack` makes it, installed from its tarball into a
    scratch project (a user's), importable by its name."""
    _node()
    npm = shutil.which("npm")
    assert npm is not None
    source = tmp_path_factory.mktemp("ts-source")
    for name in ("package.json", "tsconfig.json", "tsconfig.build.json"):
        shutil.copy(CLIENT / name, source / name)
    shutil.copytree(CLIENT / "src", source / "src")
    (source / "node_modules").symlink_to(CLIENT / "node_modules")
    tarballs = tmp_path_factory.mktemp("ts-tarball")
    _run([npm, "pack", "--pack-destination", str(tarballs), str(source)])
    (tarball,) = tarballs.glob("webagent-client-*.tgz")
    project = tmp_path_factory.mktemp("ts-user")
    (project / "package.json").write_text('{"name": "user", "type": "module", "private": true}')
    flags = ["--offline", "--no-audit", "--no-fund", "--prefix", str(project)]
    _run([npm, "install", *flags, str(tarball)])
    (project / "run.mjs").write_text(PACKED_DRIVER)
    return project


@pytest.mark.browser
@pytest.mark.services
@pytest.mark.parametrize("service", ["embedded"], indirect=True)
def test_the_packed_package_installs_imports_and_runs_a_task(
    service: Service, e2e_site: TestSite, packed_project: Path
) -> None:
    script = packed_project / "run.mjs"
    out = _run([_node(), str(script), service.base_url, e2e_site.url("/shop"), SHOP], timeout=180)
    report = json.loads(out)
    assert report == {"status": "succeeded", "answer": f"{cheapest().name} at {cheapest().price}"}
