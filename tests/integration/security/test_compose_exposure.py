"""docker-compose.yml publishes nothing beyond the host's loopback (the compose stack runs
with ALLOW_UNAUTHENTICATED_BIND=true inside its network and relies on this)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

COMPOSE = Path(__file__).resolve().parents[3] / "docker-compose.yml"


def _published(service: dict[str, Any]) -> list[str]:
    out = []
    for port in service.get("ports") or ():
        if isinstance(port, dict):  # long syntax
            out.append(f"{port.get('host_ip', '')}:{port.get('published', '')}")
        else:
            out.append(str(port))
    return out


def test_every_published_port_binds_the_hosts_loopback_only() -> None:
    compose = yaml.safe_load(COMPOSE.read_text())
    env = compose["x-webagent-env"]
    published = {name: _published(service) for name, service in compose["services"].items()}
    assert published["api"], "the API is published"
    for name, ports in published.items():
        for port in ports:
            assert port.startswith("127.0.0.1:"), f"{name} publishes {port} beyond loopback"
    assert env["WEBAGENT_ALLOW_UNAUTHENTICATED_BIND"] == "true"  # said openly, for loopback
