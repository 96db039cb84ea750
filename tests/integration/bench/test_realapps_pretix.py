"""Every pretix task's check of the real-application bench (issue 33) is sound: on the pristine
seed it FAILS, and after the task's outcome is applied at ORM level (`solve_<check>` in
bench/realapps/apps/pretix/checks.py, which also returns the answer a correct run gives) it
PASSES. Needs pretix installed under .realapps/pretix (`APP.install`); deselected from
`make test` by the `realapps` marker: run
`.venv/bin/python -m pytest -m realapps tests/integration/bench/test_realapps_pretix.py`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from bench.realapps.apps.pretix import APP
from bench.realapps.apps.pretix import checks as pretix_checks
from bench.realapps.base import Task

pytestmark = pytest.mark.realapps

CHECKOUT = Path(__file__).resolve().parents[3]
ROOT = CHECKOUT / ".realapps"
TASKS = [
    Task(**row)
    for row in yaml.safe_load((CHECKOUT / "bench/realapps/tasks/pretix.yaml").read_text())
]


def test_the_task_file_is_the_apps_and_its_checks_exist() -> None:
    ids = [t.id for t in TASKS]
    assert len(ids) == len(set(ids)) and len(ids) >= 20
    assert {t.app for t in TASKS} == {APP.name}
    assert {t.kind for t in TASKS} == {"lookup", "transaction", "staff", "must_fail"}
    for task in TASKS:
        assert callable(getattr(pretix_checks, task.check)), task.id
        assert callable(getattr(pretix_checks, f"solve_{task.check}")), task.id
        assert task.repeat_of is None or task.repeat_of in ids


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_the_check_fails_before_and_passes_after_the_outcome(task: Task) -> None:
    assert APP.installed(ROOT), "pretix is not installed under .realapps/pretix"
    check = getattr(pretix_checks, task.check)
    solve = getattr(pretix_checks, f"solve_{task.check}")
    APP.reset(ROOT)
    before = check(APP, ROOT, "")
    print(f"{task.id} before: {before.why}")
    assert not before.ok, f"{task.id}: the check passes on the pristine seed: {before.why}"
    answer = solve(APP, ROOT)
    after = check(APP, ROOT, answer)
    print(f"{task.id} after: {after.why}")
    assert after.ok, f"{task.id}: the check fails after the scripted outcome: {after.why}"
    APP.reset(ROOT)


def test_an_honest_has_no_answer_passes_the_must_fail_check() -> None:
    """Relay finding (issue 33, pretix-22): the run answered "The ... shop has no 'Midnight
    Harbour Boat Cruise', so nothing was bought" and the check's phrase list missed it."""
    assert APP.installed(ROOT), "pretix is not installed under .realapps/pretix"
    APP.reset(ROOT)
    answer = (
        'The Harbour Jazz Festival 2027 shop has no "Midnight Harbour Boat Cruise", so '
        "nothing was bought."
    )
    verdict = pretix_checks.boat_cruise_not_found(APP, ROOT, answer)
    assert verdict.ok, verdict.why
    assert not pretix_checks.boat_cruise_not_found(APP, ROOT, "Bought 2 tickets.").ok
