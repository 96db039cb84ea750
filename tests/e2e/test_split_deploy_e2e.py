"""The split deployment as docker-compose.yml ships it (issue 37 §2), as separate processes.

The API (`webagent serve`) and a worker (`webagent worker`) run as two subprocesses, each in
its own working folder with its own data folder (the containers share no volume), with the
WEBAGENT_* environment docker-compose.yml gives the `api` and `worker` services. Only the
addresses of the services compose would start are replaced by this test's (Postgres, Redis,
the scripted LLM, and an S3 server double for MinIO), plus the browser path and the local
test site's private address. A task with a secret runs on the worker; its success and the
screenshot the worker stored are read through the API.
"""

from __future__ import annotations

import base64
import os
import re
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from app.db.migrate import upgrade
from bench.support import free_port, serve
from tests.e2e.test_secrets_e2e import PASSWORD, LoginSite, login_policy
from tests.support.llm_server import ScriptedLLMServer
from tests.support.procs import die_with_parent
from tests.support.s3_server import S3Server
from tests.support.worker_proc import WEBAGENT, wait_for, worker_process

pytestmark = pytest.mark.xdist_group("redis")

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
VARIABLE = re.compile(r"\$\{(?P<name>\w+)(?:(?P<op>:[-?])(?P<arg>[^}]*))?\}")
# what compose's own services answer at, and the container's image settings (Dockerfile)
ADDRESSES = (
    "WEBAGENT_DATABASE_URL",
    "WEBAGENT_REDIS_URL",
    "WEBAGENT_LLM_BASE_URL",
    "WEBAGENT_ARTIFACT_S3_ENDPOINT",
)


def interpolate(value: str, shell: dict[str, str]) -> str:
    """Compose's `${VAR}`, `${VAR:-default}` and `${VAR:?message}` against `shell`."""

    def one(match: re.Match[str]) -> str:
        name, op, arg = match["name"], match["op"], match["arg"]
        if shell.get(name):
            return shell[name]
        if op == ":?":
            raise AssertionError(f"compose needs {name}: {arg}")
        return arg or ""

    return VARIABLE.sub(one, value)


def compose_env(service: str, shell: dict[str, str]) -> dict[str, str]:
    """The service's environment in docker-compose.yml, as `docker compose up` sets it."""
    spec = yaml.safe_load(COMPOSE.read_text())["services"][service]
    return {k: interpolate(str(v), shell) for k, v in spec.get("environment", {}).items()}


def fernet_key() -> str:
    return base64.urlsafe_b64encode(os.urandom(32)).decode()


def local(env: dict[str, str], **addresses: str) -> dict[str, str]:
    """`env` with compose's service addresses replaced by this test's."""
    assert set(addresses) <= set(ADDRESSES)
    here = {k: v for k, v in env.items() if k in ADDRESSES and k not in addresses}
    assert not any("minio" in v for v in here.values()), here  # MinIO is replaced when used
    return {
        **env,
        **addresses,
        "WEBAGENT_CHROMIUM_PATH": os.environ.get("WEBAGENT_CHROMIUM_PATH", "/usr/bin/chromium"),
        "WEBAGENT_DATA_DIR": "data",  # the image's /data volume: one per container
        "WEBAGENT_ALLOW_PRIVATE_NETWORKS": "true",  # the test site is on 127.0.0.1
        "WEBAGENT_LLM_MAX_RETRIES": "0",
        "WEBAGENT_HEARTBEAT_INTERVAL_S": "1",
    }


@pytest.fixture
def api_process(tmp_path: Path) -> Iterator[Any]:
    procs: list[subprocess.Popen[bytes]] = []

    def start(env: dict[str, str], cwd: Path) -> str:
        port = free_port()
        clean = {k: v for k, v in os.environ.items() if not k.startswith("WEBAGENT_")}
        log = (cwd / "api.log").open("wb")
        proc = subprocess.Popen(
            [WEBAGENT, "serve", "--host", "127.0.0.1", "--port", str(port)],
            env={**clean, **env},
            cwd=cwd,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=die_with_parent,
        )
        procs.append(proc)
        url = f"http://127.0.0.1:{port}"

        def up() -> bool:
            assert proc.poll() is None, (cwd / "api.log").read_text()[-3000:]
            try:
                return httpx.get(f"{url}/healthz", timeout=1).status_code == 200
            except httpx.HTTPError:
                return False

        wait_for(up, 120, "the API process")
        return url

    yield start
    for proc in procs:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_compose_split_deployment_runs_a_secret_task_and_serves_its_screenshot(
    tmp_path: Path,
    chromium_path: str,
    postgres_url: str,
    redis_url: str,
    s3_server: S3Server,
    api_process: Any,
) -> None:
    shell = {"WEBAGENT_SECRETS_KEY": fernet_key(), "WEBAGENT_LLM_API_KEY": "e2e-key"}
    upgrade(postgres_url)  # the `migrate` service
    site = LoginSite()
    with ScriptedLLMServer(login_policy) as llm, serve(site.app()) as site_url:
        addresses: dict[str, str] = {
            "WEBAGENT_DATABASE_URL": postgres_url,
            "WEBAGENT_REDIS_URL": redis_url,
            "WEBAGENT_LLM_BASE_URL": llm.base_url,
        }
        api_env = compose_env("api", shell)
        if api_env.get("WEBAGENT_ARTIFACT_STORE") == "s3":
            addresses["WEBAGENT_ARTIFACT_S3_ENDPOINT"] = s3_server.endpoint
            bucket = api_env["WEBAGENT_ARTIFACT_S3_BUCKET"]
            httpx.put(f"{s3_server.endpoint}/{bucket}", timeout=10)  # the `bucket` service
        # a queue of its own, as two deployments on one Redis have: the e2e package's
        # production worker (tests/e2e/conftest.py) is alive on the default queue and the same
        # Postgres database, and took this test's job in full runs (it failed the task: other
        # secrets key, other model server)
        own_queue = {"WEBAGENT_QUEUE_NAME": f"split-{uuid.uuid4().hex[:8]}"}
        api_dir, worker_dir = tmp_path / "api", tmp_path / "worker"
        api_dir.mkdir()
        worker_dir.mkdir()
        env = {**local(compose_env("worker", shell), **addresses), **own_queue}
        env["WEBAGENT_CHROMIUM_PATH"] = chromium_path
        env.pop("WEBAGENT_WORKER_METRICS_PORT")  # worker_process picks a free one
        with worker_process(env, worker_dir / "worker.log", cwd=worker_dir):
            base_url = api_process({**local(api_env, **addresses), **own_queue}, api_dir)
            with httpx.Client(base_url=base_url, timeout=30.0) as client:
                created = client.post(
                    "/v1/tasks",
                    json={
                        "instruction": "sign in with the password",
                        "start_url": f"{site_url}/login",
                        "secrets": {"pw": {"value": PASSWORD, "domains": ["127.0.0.1"]}},
                        "approval_policy": "none",
                    },
                )
                assert created.status_code == 202, created.text
                task_id = created.json()["id"]
                deadline = time.monotonic() + 120
                while (task := client.get(f"/v1/tasks/{task_id}").json())["status"] in (
                    "queued",
                    "running",
                ):
                    assert time.monotonic() < deadline, task
                    time.sleep(0.2)
                assert task["status"] == "succeeded", (
                    task,
                    client.get(f"/v1/tasks/{task_id}/events").text[-4000:],
                    (worker_dir / "worker.log").read_text()[-4000:],
                )
                assert site.received == [PASSWORD]
                listed = client.get(f"/v1/tasks/{task_id}/artifacts").json()
                shots = [a for a in listed if a["kind"] == "screenshot"]
                assert shots, listed
                got = client.get(f"/v1/tasks/{task_id}/artifacts/{shots[0]['id']}")
                assert got.status_code == 200, got.text
                assert got.content.startswith(b"\x89PNG") or got.content[:3] == b"\xff\xd8\xff"
                assert len(got.content) == shots[0]["size"]
    # nothing was shared through a folder: each process kept to its own
    assert not (worker_dir / "data" / "artifacts").exists()
    assert not (api_dir / "data" / "secrets.key").exists()
