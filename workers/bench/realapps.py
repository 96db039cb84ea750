"""`webagent bench realapps`: the real-application tasks (issue 33) through the real service.

For each task: reset its app to the seed, submit the task over the HTTP API (an embedded
service, or `--server`) with the task's secrets and `127.0.0.1` allowed, follow its events
(approving any approval request, counted: an unattended run should ask none), read the
final task, run the task's check on the app's state and answer, and keep one row.

Memory across tasks: by default one service and one fresh database serve the whole run, so
what a task teaches (site learnings, proven routes, dead ends) is there for the next, e.g. the
second task of a repeat pair. `fresh`: a new service per task on the same database;
`memory=False`: a new service on an empty database per task (nothing carries over).
"""

from __future__ import annotations

import json
import socket
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

import httpx

from app.contracts import EventType
from app.settings import Settings
from workers.bench.realapps_catalog import Catalog

ANSWER_CHARS = 200


class TaskService(Protocol):
    """What the runner needs of the service (workers/cli/client.TaskClient fits)."""

    def submit(self, body: dict[str, Any]) -> dict[str, Any]: ...

    def get(self, task_id: str) -> dict[str, Any]: ...

    def events(self, task_id: str) -> Iterator[Any]: ...

    def decide_approval(self, task_id: str, approval_id: str, decision: str) -> Any: ...


ServiceOpener = Callable[[Settings], AbstractContextManager[TaskService]]


@dataclass(frozen=True)
class RunConfig:
    label: str = "defaults"
    planner: bool = True  # False: the Worker alone (WEBAGENT_PLANNER_ENABLED=false)
    memory: bool = True  # False: an empty database per task
    fresh: bool = False  # a new service per task
    max_steps: int = 40
    timeout_s: float = 900.0

    def settings(self, base: Settings, data_dir: Path) -> Settings:
        """The service's settings for this configuration: SQLite under `data_dir`, the
        browser allowed onto 127.0.0.1 (the operator allowlist, not all private networks)."""
        return base.model_copy(
            update={
                "database_url": "",
                "data_dir": str(data_dir),
                "allow_private_networks": False,
                "allowed_private_hosts": "127.0.0.1",
                "planner_enabled": self.planner,
            }
        )


@dataclass(frozen=True)
class TaskRow:
    task: str
    app: str
    kind: str
    config: str
    success: bool
    why: str  # the check's finding
    status: str
    steps: int
    llm_calls: int
    input_tokens: int  # as the model endpoint reports them
    output_tokens: int
    request_tokens: int  # o200k of every request sent (workers/bench/llm_meter.py); 0: --server
    seconds: float
    approvals: int
    approval_reasons: tuple[str, ...] = ()
    answer: str = ""
    error: str = ""


@dataclass
class RunReport:
    config: RunConfig
    rows: list[TaskRow] = field(default_factory=list)

    def success_rate(self) -> float:
        return sum(r.success for r in self.rows) / len(self.rows) if self.rows else 0.0

    def as_json(self) -> dict[str, Any]:
        return {"config": asdict(self.config), "rows": [asdict(r) for r in self.rows]}


def answer_of(task: dict[str, Any]) -> str:
    """What the check reads: the result's answer (else the error detail, for a run that
    failed saying why), then result.data as one JSON line when there is any."""
    result = task.get("result") or {}
    text = str(result.get("answer") or task.get("error_detail") or "")
    data = result.get("data")
    return text + ("\n" + json.dumps(data) if data else "")


def task_body(task: Any, base_url: str, config: RunConfig) -> dict[str, Any]:
    body: dict[str, Any] = {
        "instruction": task.instruction,
        "start_url": base_url + task.start_path,
        "allowed_domains": ["127.0.0.1"],
        "max_steps": config.max_steps,
        "timeout_s": config.timeout_s,
    }
    if task.secrets:
        body["secrets"] = {name: {"value": value, "domains": ["127.0.0.1"]}
                           for name, value in task.secrets.items()}  # fmt: skip
    if task.output_schema:
        body["output_schema"] = task.output_schema
    return body


def follow(service: TaskService, task_id: str) -> list[str]:
    """Follow the task's events to the end, approving each approval request; returns what
    each request was for (the bench runs unattended: every one is a finding)."""
    asked: list[str] = []
    for event in service.events(task_id):
        if event.type == EventType.approval_requested:
            data = event.data
            asked.append(str(data.get("reason") or data.get("kind") or "?"))
            try:
                service.decide_approval(task_id, str(data.get("approval_id")), "approve")
            # the API refused (decided or expired meanwhile: the client's ApiError is a
            # RuntimeError) or could not be reached: noted as a finding, the run goes on
            except (RuntimeError, httpx.HTTPError) as exc:
                asked[-1] += f" (approve failed: {exc})"
    return asked


def run_one(
    catalog: Catalog, service: TaskService, task: Any, config: RunConfig, meter: Any = None
) -> TaskRow:
    """`meter` (llm_meter.Meter) counts the o200k request tokens of the service's calls."""
    app = catalog.app(task.app)
    app.reset(catalog.root)
    tokens_before = meter.tokens if meter is not None else 0
    started = time.monotonic()
    created = service.submit(task_body(task, app.base_url(), config))
    asked = follow(service, str(created["id"]))
    final = service.get(str(created["id"]))
    seconds = time.monotonic() - started
    answer = answer_of(final)
    verdict = catalog.check_of(task)(app, catalog.root, answer)
    usage = final.get("usage") or {}
    return TaskRow(
        task=task.id,
        app=task.app,
        kind=task.kind,
        config=config.label,
        success=bool(verdict.ok),
        why=verdict.why,
        status=str(final.get("status")),
        steps=int(usage.get("steps", 0)),
        llm_calls=int(usage.get("llm_calls", 0)),
        input_tokens=int(usage.get("input_tokens", 0)),
        output_tokens=int(usage.get("output_tokens", 0)),
        request_tokens=(meter.tokens - tokens_before) if meter is not None else 0,
        seconds=round(seconds, 1),
        approvals=len(asked),
        approval_reasons=tuple(asked),
        answer=answer[:ANSWER_CHARS],
        error=str(final.get("error") or ""),
    )


def run_config(
    catalog: Catalog,
    tasks: list[Any],
    config: RunConfig,
    base: Settings,
    open_service: ServiceOpener,
    on_row: Callable[[TaskRow], None] = lambda row: None,
    meter: Any = None,
) -> RunReport:
    """Every task under one configuration; see the module docstring for what is shared."""
    report = RunReport(config)
    with tempfile.TemporaryDirectory(prefix="realapps-") as tmp:
        shared = config.settings(base, Path(tmp) / "run")
        if config.fresh or not config.memory:
            for n, task in enumerate(tasks):
                data = Path(tmp) / (f"task{n}" if not config.memory else "run")
                with open_service(config.settings(base, data)) as service:
                    report.rows.append(run_one(catalog, service, task, config, meter))
                on_row(report.rows[-1])
        else:
            with open_service(shared) as service:
                for task in tasks:
                    report.rows.append(run_one(catalog, service, task, config, meter))
                    on_row(report.rows[-1])
    return report


@contextmanager
def serving(catalog: Catalog, names: set[str]) -> Iterator[None]:
    """The apps the tasks need, served for the run (installed first: `make realapps`)."""
    procs = []
    try:
        for name in sorted(names):
            app = catalog.app(name)
            if not catalog.installed(app):
                raise RuntimeError(f"{name} is not installed: run `make realapps`")
            if not _listening(app.port):  # else already served (`make realapps-serve`)
                procs.append(app.serve(catalog.root))
        yield
    finally:
        for proc in procs:
            proc.terminate()
            proc.wait(10)


def _listening(port: int) -> bool:
    with socket.socket() as sock:
        sock.settimeout(1)
        return sock.connect_ex(("127.0.0.1", port)) == 0


COLUMNS = ("task", "ok", "steps", "calls", "o200k in", "s", "approvals")


def markdown(reports: list[RunReport]) -> str:
    """One table, a row per task, each configuration's figures side by side."""
    head = ["task", "kind"]
    for rep in reports:
        head += [f"{rep.config.label} {c}" for c in COLUMNS[1:]]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    by_task = [{r.task: r for r in rep.rows} for rep in reports]
    for row in reports[0].rows:
        cells = [row.task, row.kind]
        for rows in by_task:
            r = rows.get(row.task)
            cells += (
                ["", "", "", "", "", ""]
                if r is None
                else ["yes" if r.success else "NO", str(r.steps), str(r.llm_calls),
                      str(r.request_tokens), f"{r.seconds:.0f}", str(r.approvals)]
            )  # fmt: skip
        lines.append("| " + " | ".join(cells) + " |")
    totals = ["**all**", ""]
    for rep in reports:
        done = rep.rows
        sums = [sum(getattr(r, k) for r in done) for k in ("steps", "llm_calls", "request_tokens")]
        totals += [
            f"{sum(r.success for r in done)}/{len(done)}",
            *map(str, sums),
            f"{sum(r.seconds for r in done):.0f}",
            str(sum(r.approvals for r in done)),
        ]
    lines.append("| " + " | ".join(totals) + " |")
    return "\n".join(lines)


def write(reports: list[RunReport], out: Path) -> tuple[Path, Path]:
    """`out` (JSON) and the same name with .md (the table plus each failure's finding)."""
    out.write_text(json.dumps([r.as_json() for r in reports], indent=2), encoding="utf-8")
    md = out.with_suffix(".md")
    failures = [
        f"- {r.config} {r.task}: {r.status} {r.error} - {r.why}"
        for rep in reports
        for r in rep.rows
        if not r.success
    ]
    md.write_text(markdown(reports) + "\n\n" + "\n".join(failures) + "\n", encoding="utf-8")
    return out, md
