"""Every task's check of the real-application bench (issue 33) is sound: on the pristine seed
it FAILS, and after the task's outcome is applied another way (the app's own API through
`solve_<check>` in apps/<app>/checks.py, which also returns the answer a correct run gives)
it PASSES. Needs the apps installed under .realapps/ (`make realapps`); not part of
`make test`: run `.venv/bin/python -m pytest -m realapps tests/integration/bench`.
"""

from __future__ import annotations

import pytest

from workers.bench.realapps_catalog import DEFAULT_BENCH_DIR, Catalog

pytestmark = pytest.mark.realapps

CATALOG = Catalog(DEFAULT_BENCH_DIR)
TASKS = CATALOG.tasks()


@pytest.mark.parametrize("task", TASKS, ids=[t.id for t in TASKS])
def test_the_check_fails_before_and_passes_after_the_outcome(task: object) -> None:
    app = CATALOG.app(task.app)  # type: ignore[attr-defined]
    assert CATALOG.installed(app), f"{task.app} is not installed: run `make realapps`"  # type: ignore[attr-defined]
    check, solve = CATALOG.check_of(task), CATALOG.solve_of(task)
    app.reset(CATALOG.root)
    before = check(app, CATALOG.root, "")
    print(f"{task.id} before: {before.why}")  # type: ignore[attr-defined]
    assert not before.ok, f"{task.id}: the check passes on the pristine seed: {before.why}"
    answer = solve(app, CATALOG.root)
    after = check(app, CATALOG.root, answer)
    print(f"{task.id} after: {after.why}")  # type: ignore[attr-defined]
    assert after.ok, f"{task.id}: the check fails after the scripted outcome: {after.why}"
    app.reset(CATALOG.root)
