"""The realapps runner (workers/bench/realapps.py) without a real app or service: one task
is reset, submitted with its secrets scoped to 127.0.0.1, followed (approvals approved and
counted), checked on the final answer and data, and reported side by side."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from app.settings import Settings
from bench.realapps.base import Task, Verdict
from workers.bench.realapps import RunConfig, answer_of, markdown, run_config, run_one

TASK = Task(
    id="fake-01",
    app="fake",
    instruction="Log in with <secret:pw> and count the open issues",
    start_path="/tracker/",
    check="counts",
    kind="lookup",
    secrets={"pw": "hunter2"},
    output_schema={"type": "object"},
)


class FakeApp:
    resets = 0

    def reset(self, root: Path) -> None:
        self.resets += 1

    def base_url(self) -> str:
        return "http://127.0.0.1:8699"


@dataclass
class FakeCatalog:
    fake: FakeApp
    root: Path = Path("/nowhere")

    def app(self, name: str) -> FakeApp:
        return self.fake

    def check_of(self, task: Any) -> Any:
        return lambda app, root, answer: Verdict('{"count": 3}' in answer, answer)


class FakeService:
    meter = SimpleNamespace(tokens=0)  # llm_meter.Meter: the service's requests, counted

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.decided: list[tuple[str, str]] = []

    def submit(self, body: dict[str, Any]) -> dict[str, Any]:
        self.bodies.append(body)
        return {"id": "t1"}

    def events(self, task_id: str) -> Any:
        yield SimpleNamespace(type="step.started", data={"step": 1})
        yield SimpleNamespace(
            type="approval.requested", data={"approval_id": "a1", "reason": "click 'Save'"}
        )

    def decide_approval(self, task_id: str, approval_id: str, decision: str) -> None:
        self.decided.append((approval_id, decision))

    def get(self, task_id: str) -> dict[str, Any]:
        self.meter.tokens += 700
        return {
            "status": "succeeded",
            "result": {"answer": "three", "data": {"count": 3}},
            "usage": {"steps": 4, "llm_calls": 6, "input_tokens": 900, "output_tokens": 50},
        }


def test_one_task_is_reset_submitted_followed_and_checked() -> None:
    app, service = FakeApp(), FakeService()
    config = RunConfig(max_steps=30)
    row = run_one(FakeCatalog(app), service, TASK, config, service.meter)  # type: ignore[arg-type]
    body = service.bodies[0]
    assert app.resets == 1
    assert body["start_url"] == "http://127.0.0.1:8699/tracker/"
    assert body["secrets"] == {"pw": {"value": "hunter2", "domains": ["127.0.0.1"]}}
    assert (body["allowed_domains"], body["max_steps"]) == (["127.0.0.1"], 30)
    assert body["output_schema"] == {"type": "object"}
    assert service.decided == [("a1", "approve")]
    assert (row.success, row.steps, row.llm_calls, row.input_tokens) == (True, 4, 6, 900)
    assert row.request_tokens == 700
    assert (row.approvals, row.approval_reasons) == (1, ("click 'Save'",))


def test_the_answer_carries_the_data_and_a_failure_its_detail() -> None:
    done = {"result": {"answer": "three", "data": {"count": 3}}}
    assert answer_of(done) == "three\n" + json.dumps({"count": 3})
    assert answer_of({"result": None, "error_detail": "no user zoe"}) == "no user zoe"


def test_a_configuration_shares_one_service_unless_fresh_and_settings_allow_loopback() -> None:
    opened: list[Settings] = []

    class Opener:
        def __init__(self, settings: Settings) -> None:
            opened.append(settings)

        def __enter__(self) -> FakeService:
            return FakeService()

        def __exit__(self, *exc: object) -> None:
            return None

    catalog = FakeCatalog(FakeApp())
    base = Settings(database_url="postgresql://x/y")
    meter = FakeService.meter
    shared = run_config(catalog, [TASK, TASK], RunConfig(), base, Opener, meter=meter)  # type: ignore[arg-type]
    assert len(opened) == 1 and len(shared.rows) == 2
    settings = opened[0]
    assert (settings.database_url, settings.allowed_private_hosts) == ("", "127.0.0.1")
    assert not settings.allow_private_networks and settings.planner_enabled
    opened.clear()
    cold = RunConfig(label="no-planner+no-memory", planner=False, memory=False)
    run_config(catalog, [TASK, TASK], cold, base, Opener)  # type: ignore[arg-type]
    assert len(opened) == 2 and opened[0].data_dir != opened[1].data_dir
    assert not opened[0].planner_enabled
    table = markdown([shared, shared])
    assert "| fake-01 | lookup | yes | 4 | 6 | 700 |" in table
    assert "| **all** |  | 2/2 | 8 | 12 | 1400 |" in table
