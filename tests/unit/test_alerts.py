"""deploy/prometheus/alerts-reliability.yml: valid rules over metrics app.metrics exposes and
error codes app.contracts defines (promtool is not installed here, so the YAML is checked)."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from app.contracts import ErrorCode, TaskStatus
from tests.unit.test_deploy import METRIC_NAME, known_metric_names

ALERTS = Path(__file__).resolve().parents[2] / "deploy" / "prometheus" / "alerts-reliability.yml"


def _rules() -> dict[str, dict[str, object]]:
    doc = yaml.safe_load(ALERTS.read_text())
    return {r["alert"]: r for g in doc["groups"] for r in g["rules"]}


def test_every_alert_uses_exposed_metrics_and_known_label_values() -> None:
    rules = _rules()
    assert {"WebagentBrowserCrashes", "WebagentTasksInterrupted", "WebagentSlowSteps"} <= set(rules)
    known = known_metric_names()
    for name, rule in rules.items():
        expr = str(rule["expr"])
        used = set(METRIC_NAME.findall(expr))
        assert used and used <= known, (name, used - known)
        for error in re.findall(r'error="([a-z_]+)"', expr):
            assert error in ErrorCode.__members__, (name, error)
        for status in re.findall(r'status="([a-z_]+)"', expr):
            assert status in TaskStatus.__members__, (name, status)
        labels = rule["labels"]
        assert isinstance(labels, dict) and labels["severity"] in ("warning", "critical")
        assert re.fullmatch(r"\d+[smh]", str(rule["for"]))
        annotations = rule["annotations"]
        assert isinstance(annotations, dict) and annotations["summary"]


def test_the_error_counter_counts_what_the_job_and_reaper_report() -> None:
    from app import metrics

    before = metrics.TASK_ERRORS.labels(error="browser_crashed")._value.get()
    metrics.task_error("browser_crashed")
    metrics.task_error(None)  # a succeeded task has no error: nothing counted
    assert metrics.TASK_ERRORS.labels(error="browser_crashed")._value.get() == before + 1
