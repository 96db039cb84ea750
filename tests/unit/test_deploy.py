"""deploy/ (Kubernetes, Grafana, Prometheus) agrees with Settings, the CLI, rq and the metrics."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
import yaml
from prometheus_client import REGISTRY
from rq import Queue

from app import metrics
from app.api.health import router as health_router
from app.contracts import QUEUE_NAME
from app.settings import Settings
from tests.unit.test_packaging import assert_real_command
from workers.cli.main import _register_all, cli

ROOT = Path(__file__).resolve().parents[2]
BASE = ROOT / "deploy" / "k8s" / "base"
DASHBOARD = ROOT / "deploy" / "grafana" / "webagent.json"
RULES = ROOT / "deploy" / "prometheus" / "rules.yml"
METRIC_NAME = re.compile(r"\bwebagent_[a-z0-9_]+")


def default(field: str) -> Any:
    return Settings.model_fields[field].default


@pytest.fixture(scope="module")
def root_command() -> Any:
    _register_all()
    return typer.main.get_command(cli)


@pytest.fixture(scope="module")
def manifests() -> list[dict[str, Any]]:
    """Every document of the kustomize base, as `kubectl apply -k` would read them."""
    kustomization = yaml.safe_load((BASE / "kustomization.yaml").read_text())
    listed = kustomization["resources"]
    on_disk = sorted(p.name for p in BASE.glob("*.yaml") if p.name != "kustomization.yaml")
    assert sorted(listed) == on_disk, "every manifest is listed in kustomization.yaml"
    docs = []
    for name in listed:
        docs += [d for d in yaml.safe_load_all((BASE / name).read_text()) if d]
    return docs


def find(docs: list[dict[str, Any]], kind: str, name: str) -> dict[str, Any]:
    (doc,) = [d for d in docs if d["kind"] == kind and d["metadata"]["name"] == name]
    return doc


def containers(docs: list[dict[str, Any]]) -> Iterator[tuple[str, dict[str, Any]]]:
    for doc in docs:
        if doc["kind"] in ("Deployment", "Job"):
            for container in doc["spec"]["template"]["spec"]["containers"]:
                yield doc["metadata"]["name"], container


def env_of(container: dict[str, Any], docs: list[dict[str, Any]]) -> dict[str, Any]:
    """Container env with its ConfigMap envFrom merged in (explicit env wins, as in k8s)."""
    env: dict[str, Any] = {}
    for source in container.get("envFrom", []):
        env.update(find(docs, "ConfigMap", source["configMapRef"]["name"])["data"])
    for item in container.get("env", []):
        env[item["name"]] = item.get("value", item.get("valueFrom"))
    return env


def option(argv: list[str], name: str) -> str:
    return argv[argv.index(name) + 1]


def known_metric_names() -> set[str]:
    """Series names app.metrics exposes: family names plus their exposition suffixes."""
    assert metrics.TASKS_FINISHED is not None  # registered on import
    names: set[str] = set()
    for family in REGISTRY.collect():
        if not family.name.startswith("webagent_"):
            continue
        suffixes = {"counter": ["_total"], "histogram": ["_bucket", "_sum", "_count"]}
        names.update(family.name + s for s in suffixes.get(family.type, [""]))
    return names


def test_env_names_are_settings_fields(manifests: list[dict[str, Any]]) -> None:
    configmap = find(manifests, "ConfigMap", "webagent-config")
    names = set(configmap["data"])
    for _, container in containers(manifests):
        names |= {e["name"] for e in container.get("env", [])}
    webagent = {n for n in names if n.startswith("WEBAGENT_")}
    assert webagent >= {"WEBAGENT_DATABASE_URL", "WEBAGENT_REDIS_URL", "WEBAGENT_LLM_API_KEY"}
    for name in webagent:
        assert name.removeprefix("WEBAGENT_").lower() in Settings.model_fields, name
    for value in configmap["data"].values():
        assert isinstance(value, str)  # ConfigMap data must be strings


def test_secrets_come_from_the_secret(manifests: list[dict[str, Any]]) -> None:
    configmap = find(manifests, "ConfigMap", "webagent-config")["data"]
    for secret in ("WEBAGENT_DATABASE_URL", "WEBAGENT_REDIS_URL", "WEBAGENT_LLM_API_KEY"):
        assert secret not in configmap
    for workload, container in containers(manifests):
        for item in container.get("env", []):
            if item["name"] in ("WEBAGENT_DATABASE_URL", "WEBAGENT_REDIS_URL"):
                ref = item["valueFrom"]["secretKeyRef"]
                assert ref["name"] == "webagent-secrets", workload


def test_commands_are_cli_commands(manifests: list[dict[str, Any]], root_command: Any) -> None:
    commands = {
        workload: assert_real_command(root_command, container["command"])
        for workload, container in containers(manifests)
    }
    assert commands == {
        "webagent-api": "serve",
        "webagent-worker": "worker",
        "webagent-migrate": "migrate",
    }


def test_api_ports_probes_and_service(manifests: list[dict[str, Any]]) -> None:
    api = find(manifests, "Deployment", "webagent-api")
    (container,) = api["spec"]["template"]["spec"]["containers"]
    env = env_of(container, manifests)
    port = default("port")
    assert env["WEBAGENT_HOST"] == "0.0.0.0"
    assert int(env["WEBAGENT_PORT"]) == int(option(container["command"], "--port")) == port
    assert [p["containerPort"] for p in container["ports"]] == [port]
    assert container["livenessProbe"]["httpGet"]["path"] == "/healthz"
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    routes = {getattr(r, "path", None) for r in health_router.routes}
    assert {"/healthz", "/readyz", "/metrics"} <= routes
    annotations = api["spec"]["template"]["metadata"]["annotations"]
    assert int(annotations["prometheus.io/port"]) == port

    service = find(manifests, "Service", "webagent-api")
    assert (
        service["spec"]["selector"].items() <= api["spec"]["template"]["metadata"]["labels"].items()
    )
    (svc_port,) = service["spec"]["ports"]
    assert svc_port["targetPort"] == container["ports"][0]["name"]


def test_worker_metrics_ports_and_grace(manifests: list[dict[str, Any]]) -> None:
    worker = find(manifests, "Deployment", "webagent-worker")
    pod = worker["spec"]["template"]
    (container,) = pod["spec"]["containers"]
    env = env_of(container, manifests)
    base = int(env["WEBAGENT_WORKER_METRICS_PORT"])
    assert base == default("worker_metrics_port")
    assert env["WEBAGENT_HOST"] == "0.0.0.0"  # the metrics endpoint binds WEBAGENT_HOST
    concurrency = int(option(container["command"], "--concurrency"))
    assert [p["containerPort"] for p in container["ports"]] == [
        base + i for i in range(concurrency)
    ]
    assert int(pod["metadata"]["annotations"]["prometheus.io/port"]) == base
    grace = float(option(container["command"], "--grace"))
    assert pod["spec"]["terminationGracePeriodSeconds"] > grace  # SIGKILL only after --grace
    assert grace >= default("default_timeout_s")  # a default task may finish on scale-down


def test_keda_scales_the_worker_on_rqs_queue_key(manifests: list[dict[str, Any]]) -> None:
    scaled = find(manifests, "ScaledObject", "webagent-worker")
    worker = find(manifests, "Deployment", "webagent-worker")
    assert scaled["spec"]["scaleTargetRef"]["name"] == worker["metadata"]["name"]
    assert scaled["spec"]["minReplicaCount"] >= 1  # running tasks are not in the list
    (trigger,) = scaled["spec"]["triggers"]
    assert trigger["type"] == "redis"
    # rq keeps waiting job ids in the list `rq:queue:<name>`
    assert trigger["metadata"]["listName"] == Queue.redis_queue_namespace_prefix + QUEUE_NAME
    assert int(trigger["metadata"]["listLength"]) >= 1


def test_dashboard_metrics_exist_and_cover_the_service() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    used = {m for e in exprs for m in METRIC_NAME.findall(e)}
    unknown = used - known_metric_names()
    assert not unknown, f"dashboard uses metrics app.metrics does not expose: {unknown}"
    assert used >= {
        "webagent_tasks_finished_total",
        "webagent_task_duration_seconds_bucket",
        "webagent_queue_depth",
        "webagent_queue_wait_seconds_bucket",
        "webagent_step_duration_seconds_bucket",
        "webagent_llm_requests_total",
        "webagent_llm_tokens_total",
        "webagent_llm_latency_seconds_bucket",
        "webagent_browsers",
        "webagent_sse_connections",
        "webagent_llm_cost_usd_total",  # issue 23 §9: money, not only tokens
    }
    ids = [p["id"] for p in dashboard["panels"]]
    assert len(ids) == len(set(ids))


def test_alert_rules_reference_real_metrics() -> None:
    rules = yaml.safe_load(RULES.read_text())
    alerts = {r["alert"]: r for g in rules["groups"] for r in g["rules"]}
    assert set(alerts) >= {
        "WebagentQueueBacklog",
        "WebagentWorkersLost",
        "WebagentLLMErrorRatio",
        "WebagentNoBrowsers",
    }
    known = known_metric_names()
    for name, rule in alerts.items():
        used = set(METRIC_NAME.findall(rule["expr"]))
        assert used and used <= known, (name, used - known)
        assert rule["labels"]["severity"] in ("warning", "critical")
        assert re.fullmatch(r"\d+[smh]", rule["for"])
    assert "webagent_tasks_lost_total" in alerts["WebagentWorkersLost"]["expr"]


def _pod_labels(docs: list[dict[str, Any]], deployment: str) -> dict[str, str]:
    labels: dict[str, str] = find(docs, "Deployment", deployment)["spec"]["template"]["metadata"][
        "labels"
    ]
    return labels


def test_disruption_budgets_cover_api_and_worker(manifests: list[dict[str, Any]]) -> None:
    for name in ("webagent-api", "webagent-worker"):
        pdb = find(manifests, "PodDisruptionBudget", name)
        assert pdb["apiVersion"] == "policy/v1"
        assert (
            pdb["spec"]["selector"]["matchLabels"].items() <= _pod_labels(manifests, name).items()
        )
    api = find(manifests, "Deployment", "webagent-api")
    # the API keeps a replica through a drain, and can still lose one
    assert find(manifests, "PodDisruptionBudget", "webagent-api")["spec"]["minAvailable"] >= 1
    assert api["spec"]["replicas"] > 1
    # a worker is evicted alone: the others keep taking tasks while it finishes its own
    assert find(manifests, "PodDisruptionBudget", "webagent-worker")["spec"]["maxUnavailable"] == 1


def _egress_ports(rule: dict[str, Any]) -> set[tuple[str, int]]:
    return {(p.get("protocol", "TCP"), int(p["port"])) for p in rule.get("ports", [])}


def test_worker_egress_is_only_what_the_worker_needs(manifests: list[dict[str, Any]]) -> None:
    import ipaddress
    from urllib.parse import urlsplit

    policy = find(manifests, "NetworkPolicy", "webagent-worker-egress")
    selector = policy["spec"]["podSelector"]["matchLabels"]
    assert selector.items() <= _pod_labels(manifests, "webagent-worker").items()
    assert policy["spec"]["policyTypes"] == ["Egress"]
    rules = policy["spec"]["egress"]
    ports = set().union(*(_egress_ports(r) for r in rules))
    llm = urlsplit(find(manifests, "ConfigMap", "webagent-config")["data"]["WEBAGENT_LLM_BASE_URL"])
    llm_port = llm.port or (443 if llm.scheme == "https" else 80)
    # DNS, Postgres and Redis (the ports of the Secret's example URLs), the LLM endpoint, the web
    kustomization = (BASE / "kustomization.yaml").read_text()
    assert ":5432/" in kustomization and ":6379/" in kustomization
    s3 = urlsplit(
        find(manifests, "ConfigMap", "webagent-config")["data"]["WEBAGENT_ARTIFACT_S3_ENDPOINT"]
    )
    assert s3.port
    assert ports == {
        ("UDP", 53),
        ("TCP", 53),
        ("TCP", 5432),
        ("TCP", 6379),
        ("TCP", llm_port),
        ("TCP", s3.port),
    } | {
        ("TCP", 80),
        ("TCP", 443),
    }
    # every rule is bounded by ports (no "allow all")
    assert all(r.get("ports") for r in rules)
    (web,) = [r for r in rules if ("TCP", 443) in _egress_ports(r)]
    assert _egress_ports(web) == {("TCP", 80), ("TCP", 443)}
    blocks = [b["ipBlock"] for b in web["to"]]
    assert {b["cidr"] for b in blocks} == {"0.0.0.0/0", "::/0"}
    excluded = [ipaddress.ip_network(n) for b in blocks for n in b["except"]]
    # the private and non-global addresses app/urlpolicy.py refuses are outside the wall too
    for probe in (
        "10.1.2.3",
        "172.20.0.1",
        "192.168.1.1",
        "169.254.169.254",  # cloud metadata
        "127.0.0.1",
        "100.64.0.1",
        "fd00::1",
        "fe80::1",
        "::1",
    ):
        address = ipaddress.ip_address(probe)
        assert any(address in net for net in excluded if net.version == address.version), probe
    # nothing public is walled off: only non-global, multicast and NAT64 (which embeds
    # IPv4 addresses, private ones too) ranges
    nat64 = ipaddress.ip_network("64:ff9b::/96")
    assert all(not net.is_global or net.is_multicast or net == nat64 for net in excluded)


def test_alert_rules_cover_failure_rate_and_stuck_tasks() -> None:
    from app.contracts import TaskStatus

    rules = yaml.safe_load(RULES.read_text())
    alerts = {r["alert"]: r for g in rules["groups"] for r in g["rules"]}
    failure = alerts["WebagentTaskFailureRate"]["expr"]
    assert "webagent_tasks_finished_total" in failure
    for status in re.findall(
        r"[a-z_]+", " ".join(re.findall(r'status[!=]~?"([a-z_|]+)"', failure))
    ):
        assert status in TaskStatus.__members__, status
    stuck = alerts["WebagentTasksStuckRunning"]["expr"]
    assert METRIC_NAME.findall(stuck) == [metrics.TASKS_RUNNING_OVERDUE._name]


COMPOSE = ROOT / "docker-compose.yml"
SHARED_SETTINGS = (
    "WEBAGENT_SECRETS_KEY",
    "WEBAGENT_ARTIFACT_STORE",
    "WEBAGENT_ARTIFACT_S3_BUCKET",
    "WEBAGENT_ARTIFACT_S3_ENDPOINT",
    "WEBAGENT_ARTIFACT_S3_ACCESS_KEY_ID",
    "WEBAGENT_ARTIFACT_S3_SECRET_ACCESS_KEY",
)


def test_k8s_api_and_worker_share_the_secrets_key_and_artifact_store(
    manifests: list[dict[str, Any]],
) -> None:
    """Separate pods share no folder (issue 37 §2): the key sealing task secrets comes from
    the one Secret and artifacts go to one S3 bucket, for the API and the worker alike."""
    envs = {}
    for name in ("webagent-api", "webagent-worker"):
        (container,) = find(manifests, "Deployment", name)["spec"]["template"]["spec"]["containers"]
        envs[name] = env_of(container, manifests)
    api, worker = envs["webagent-api"], envs["webagent-worker"]
    for name in SHARED_SETTINGS:
        assert name in api and api[name] == worker[name], name
    assert api["WEBAGENT_ARTIFACT_STORE"] == "s3"
    assert api["WEBAGENT_SECRETS_KEY"] == {
        "secretKeyRef": {"name": "webagent-secrets", "key": "secrets-key"}
    }
    configmap = find(manifests, "ConfigMap", "webagent-config")["data"]
    assert "WEBAGENT_SECRETS_KEY" not in configmap
    assert "WEBAGENT_ARTIFACT_S3_SECRET_ACCESS_KEY" not in configmap
    kustomization = (BASE / "kustomization.yaml").read_text()
    assert "secrets-key=" in kustomization and "s3-secret-access-key=" in kustomization


def test_compose_api_and_worker_share_the_secrets_key_and_artifact_store() -> None:
    compose = yaml.safe_load(COMPOSE.read_text())
    services = compose["services"]
    api, worker = services["api"]["environment"], services["worker"]["environment"]
    for env in (api, worker):
        for name in env:
            assert name.removeprefix("WEBAGENT_").lower() in Settings.model_fields, name
    for name in SHARED_SETTINGS:
        assert name in api and api[name] == worker[name], name
    assert api["WEBAGENT_ARTIFACT_STORE"] == "s3"
    assert api["WEBAGENT_SECRETS_KEY"].startswith("${WEBAGENT_SECRETS_KEY:?")  # required
    endpoint = api["WEBAGENT_ARTIFACT_S3_ENDPOINT"]
    host = endpoint.split("//")[1].split(":")[0]
    assert host in services  # the store is a service of the file (MinIO)
    bucket = api["WEBAGENT_ARTIFACT_S3_BUCKET"]
    assert any(bucket in str(s.get("command", "")) for s in services.values())
    for name in ("api", "worker"):
        depends = services[name]["depends_on"]
        assert depends["bucket"]["condition"] == "service_completed_successfully"
        assert "volumes" not in services[name]  # nothing shared through a folder
