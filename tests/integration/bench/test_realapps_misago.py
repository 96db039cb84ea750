"""Every Misago task's check (issue 33) is sound: on the pristine seed it FAILS, and after the
task's outcome is applied at ORM/SQL level (`solve_<check>` in bench/realapps/apps/misago/
checks.py, which also returns the answer a correct run gives) it PASSES; the tasks file
matches the `Task` contract. Needs the forum installed under .realapps/misago (Postgres on
127.0.0.1); not part of `make test`: run
`.venv/bin/python -m pytest -m realapps tests/integration/bench/test_realapps_misago.py`.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

CHECKOUT = Path(__file__).resolve().parents[3]
ROOT = CHECKOUT / ".realapps"
TASKS_FILE = CHECKOUT / "bench" / "realapps" / "tasks" / "misago.yaml"

pytestmark = pytest.mark.realapps

if str(CHECKOUT) not in sys.path:
    sys.path.insert(0, str(CHECKOUT))


def _load() -> tuple[Any, Any, list[Any]]:
    base = importlib.import_module("bench.realapps.base")
    app = importlib.import_module("bench.realapps.apps.misago").APP
    checks = importlib.import_module("bench.realapps.apps.misago.checks")
    rows = yaml.safe_load(TASKS_FILE.read_text(encoding="utf-8"))
    return app, checks, [base.Task(**row) for row in rows]


APP, CHECKS, TASKS = _load()


def test_the_tasks_follow_the_contract() -> None:
    ids = [t.id for t in TASKS]
    assert len(ids) == len(set(ids)) and all(i.startswith("misago-") for i in ids)
    assert {t.app for t in TASKS} == {"misago"}
    assert {t.kind for t in TASKS} <= {"lookup", "transaction", "staff", "must_fail"}
    assert [t.id for t in TASKS if t.kind == "must_fail"]
    assert {t.repeat_of for t in TASKS if t.repeat_of} <= set(ids)
    for task in TASKS:
        assert callable(getattr(CHECKS, task.check, None)), task.check
        assert callable(getattr(CHECKS, f"solve_{task.check}", None)), task.check
        for name in task.secrets:
            assert f"<secret:{name}>" in task.instruction, (task.id, name)


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_the_check_fails_before_and_passes_after_the_outcome(task: Any) -> None:
    assert APP.installed(ROOT), "misago is not installed under .realapps/"
    check, solve = getattr(CHECKS, task.check), getattr(CHECKS, f"solve_{task.check}")
    APP.reset(ROOT)
    before = check(APP, ROOT, "")
    print(f"{task.id} before: {before.why}")
    assert not before.ok, f"{task.id}: the check passes on the pristine seed: {before.why}"
    answer = solve(APP, ROOT)
    after = check(APP, ROOT, answer)
    print(f"{task.id} after: {after.why}")
    assert after.ok, f"{task.id}: the check fails after the scripted outcome: {after.why}"
    APP.reset(ROOT)
