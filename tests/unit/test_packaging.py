"""Dockerfile and docker-compose.yml agree with the CLI, the Settings fields and each other."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml

from app.settings import Settings
from workers.cli.main import _register_all, cli

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
COMPOSE = ROOT / "docker-compose.yml"
OUR_IMAGE = "webagent:local"


def default(field: str) -> Any:
    return Settings.model_fields[field].default


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with line continuations joined and comments dropped."""
    text = re.sub(r"\\\n", " ", DOCKERFILE.read_text())
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            word, _, rest = line.partition(" ")
            out.append((word.upper(), rest.strip()))
    return out


def dockerfile_env() -> dict[str, str]:
    env: dict[str, str] = {}
    for word, rest in dockerfile_instructions():
        if word == "ENV":
            for pair in shlex.split(rest):
                key, _, value = pair.partition("=")
                env[key] = value
    return env


def dockerfile_json(word: str) -> list[str]:
    (args,) = [rest for w, rest in dockerfile_instructions() if w == word]
    value: list[str] = json.loads(args)
    return value


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return data


@pytest.fixture(scope="module")
def root_command() -> Any:
    """The click group typer builds from the real `webagent` app (all modules registered)."""
    _register_all()
    return typer.main.get_command(cli)


def assert_real_command(group: Any, argv: list[str]) -> str:
    """argv is `webagent <command> [options]` that the CLI parses without error."""
    assert argv[0] == "webagent", argv
    name, args = argv[1], argv[2:]
    ctx = group.make_context("webagent", [name, *args])
    command = group.get_command(ctx, name)
    assert command is not None, f"`webagent {name}` is not a CLI command"
    command.make_context(name, list(args), parent=ctx)  # raises on unknown options/values
    return str(name)


def our_services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {n: s for n, s in compose["services"].items() if s.get("image") == OUR_IMAGE}


def test_dockerfile_env_vars_are_settings_fields() -> None:
    env = dockerfile_env()
    webagent = {k for k in env if k.startswith("WEBAGENT_")}
    assert webagent, "the Dockerfile sets no WEBAGENT_* variables"
    for key in webagent:
        assert key.removeprefix("WEBAGENT_").lower() in Settings.model_fields, key


def test_dockerfile_chromium_port_and_command(root_command: Any) -> None:
    env = dockerfile_env()
    run_lines = " ".join(rest for word, rest in dockerfile_instructions() if word == "RUN")
    assert re.search(r"apt-get install[^&]*\bchromium\b", run_lines)
    assert env["WEBAGENT_CHROMIUM_PATH"] == "/usr/bin/chromium" == default("chromium_path")
    assert env["WEBAGENT_HOST"] == "0.0.0.0"
    exposed = [rest for word, rest in dockerfile_instructions() if word == "EXPOSE"]
    assert exposed == [str(default("port"))] == [env["WEBAGENT_PORT"]]
    assert dockerfile_json("CMD") == ["webagent", "serve"]
    assert_real_command(root_command, dockerfile_json("CMD"))
    users = [rest for word, rest in dockerfile_instructions() if word == "USER"]
    assert users and users[-1] not in ("root", "0")


def test_compose_env_vars_are_settings_fields(compose: dict[str, Any]) -> None:
    services = our_services(compose)
    assert set(services) >= {"api", "worker", "migrate"}
    for name, service in services.items():
        keys = [k for k in service["environment"] if k.startswith("WEBAGENT_")]
        assert keys, name
        for key in keys:
            assert key.removeprefix("WEBAGENT_").lower() in Settings.model_fields, (name, key)


def test_compose_api_and_worker_share_backends(compose: dict[str, Any]) -> None:
    api, worker = compose["services"]["api"], compose["services"]["worker"]
    assert api["environment"] == worker["environment"]
    env = api["environment"]
    assert env["WEBAGENT_DATABASE_URL"].startswith("postgresql+asyncpg://")
    assert "@postgres:5432/" in env["WEBAGENT_DATABASE_URL"]
    assert env["WEBAGENT_REDIS_URL"].startswith("redis://redis:6379/")
    assert {"postgres", "redis"} <= set(compose["services"])
    pg_check = compose["services"]["postgres"]["healthcheck"]["test"]
    assert "pg_isready" in pg_check


def test_compose_commands_are_cli_commands(compose: dict[str, Any], root_command: Any) -> None:
    commands = {
        name: assert_real_command(root_command, service["command"])
        for name, service in our_services(compose).items()
    }
    assert commands == {"api": "serve", "worker": "worker", "migrate": "migrate"}
    worker = compose["services"]["worker"]
    assert worker["depends_on"]["migrate"]["condition"] == "service_completed_successfully"
    assert compose["services"]["api"]["depends_on"]["migrate"]["condition"] == (
        "service_completed_successfully"
    )


def _option(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def test_compose_ports_agree_with_settings(compose: dict[str, Any]) -> None:
    api = compose["services"]["api"]
    port = int(_option(api["command"], "--port"))
    assert port == default("port")
    # published on the host's loopback only: the security default is "bind 127.0.0.1"
    assert api["ports"] == [f"127.0.0.1:{port}:{port}"]
    assert f"127.0.0.1:{port}/healthz" in " ".join(api["healthcheck"]["test"])

    worker = compose["services"]["worker"]
    concurrency = int(_option(worker["command"], "--concurrency"))
    base = int(worker["environment"]["WEBAGENT_WORKER_METRICS_PORT"])
    assert base == default("worker_metrics_port")
    assert sorted(int(p) for p in worker["expose"]) == [base + i for i in range(concurrency)]
    assert f"127.0.0.1:{base}/metrics" in " ".join(worker["healthcheck"]["test"])
