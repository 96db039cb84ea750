"""The real-application bench's task files (issue 33) hold together without any app installed:
every bench/realapps/tasks/*.yaml loads into `Task`, names an app that exists and a check (and
its scripted solve) that checks.py defines, and uses only the secrets it carries."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from workers.bench.realapps_catalog import DEFAULT_BENCH_DIR, Catalog, CatalogError

CATALOG = Catalog(DEFAULT_BENCH_DIR)
KINDS = {"lookup", "transaction", "staff", "must_fail"}
SECRET = re.compile(r"<secret:([A-Za-z0-9_.-]+)>")


def test_every_task_validates_and_finds_its_check_and_solve() -> None:
    tasks = CATALOG.tasks()
    assert len(tasks) >= 20
    apps = set(CATALOG.app_names())
    ids = {t.id for t in tasks}
    for task in tasks:
        assert task.app in apps, task.id
        assert task.id.startswith(f"{task.app}-"), task.id
        assert task.kind in KINDS, task.id
        assert task.start_path.startswith("/"), task.id
        assert callable(CATALOG.check_of(task)) and callable(CATALOG.solve_of(task))
        assert task.repeat_of is None or task.repeat_of in ids, task.id
        assert set(SECRET.findall(task.instruction)) == set(task.secrets), task.id


def test_every_app_module_exposes_its_app_on_its_own_port() -> None:
    apps = [CATALOG.app(name) for name in CATALOG.app_names()]
    assert [a.name for a in apps] == CATALOG.app_names()
    ports = [a.port for a in apps]
    assert len(ports) == len(set(ports))
    assert all(a.base_url() == f"http://127.0.0.1:{a.port}" for a in apps)


def test_the_roundup_set_has_repeat_pairs_long_tasks_and_a_must_fail() -> None:
    tasks = CATALOG.tasks("roundup")
    assert len([t for t in tasks if t.repeat_of]) >= 2
    assert [t for t in tasks if t.kind == "must_fail"]
    assert len([t for t in tasks if t.min_steps >= 10]) >= 5


def test_a_task_with_an_unknown_field_or_a_missing_check_is_refused(tmp_path: Path) -> None:
    bench = tmp_path / "bench" / "realapps"
    (bench / "tasks").mkdir(parents=True)
    (bench / "tasks" / "x.yaml").write_text(
        "- {id: x-1, app: x, instruction: hi, start_path: /, check: c, kind: lookup, oops: 1}\n"
    )
    with pytest.raises(CatalogError, match="oops"):
        Catalog(bench).tasks()
    task = CATALOG.tasks("roundup")[0]
    bogus = type(task)(**{**task.__dict__, "check": "no_such_check"})
    with pytest.raises(CatalogError, match="no_such_check"):
        CATALOG.check_of(bogus)


def test_unknown_task_ids_are_named() -> None:
    with pytest.raises(CatalogError, match="roundup-99"):
        CATALOG.select(["roundup-01", "roundup-99"])
    assert [t.id for t in CATALOG.select(["roundup-02", "roundup-01"])] == [
        "roundup-02",
        "roundup-01",
    ]
