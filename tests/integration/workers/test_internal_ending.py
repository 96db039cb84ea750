"""Issue 31 item 1: an `internal` ending is never silent. The task's error_detail names the
exception's class and message (the task's secrets masked), the traceback is logged with the
task id, and webagent_internal_errors_total counts it by class."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from app import metrics
from app.contracts import ErrorCode, TaskStatus
from app.secrets import SecretEntry
from tests.integration.workers.conftest import new_task
from tests.integration.workers.test_jobs import Sessions, embedded, wait_terminal
from tests.support.sites import TestSite
from workers import jobs
from workers.adapters.secrets import SecretVault
from workers.process.embedded import EmbeddedWorkers

pytestmark = [pytest.mark.browser, pytest.mark.services, pytest.mark.both_databases]
__all__ = ["embedded"]  # the fixture, used by name

SECRET = "tangerine-4471-secret"


class SweptAway(OSError):
    """Stands for an unexpected fault escaping the agent loop."""


async def test_an_internal_ending_is_recorded_logged_and_counted(
    embedded: tuple[EmbeddedWorkers, object],
    sessions: Sessions,
    test_site: TestSite,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    async def broken(*args: Any, **kw: Any) -> Any:
        raise SweptAway(f"no such file: /scratch/{SECRET}/notes.txt")

    def vault(cls: type[SecretVault], spec: Any, settings: Any) -> SecretVault:
        return cls({"pw": SecretEntry(value=SECRET)})

    monkeypatch.setattr(jobs, "run_routed", broken)
    monkeypatch.setattr(SecretVault, "for_task", classmethod(vault))
    counted = metrics.INTERNAL_ERRORS.labels(exception="SweptAway")
    before = counted._value.get()
    workers, _ = embedded
    task_id = await new_task(sessions, start_url=test_site.url("/"))
    with caplog.at_level(logging.ERROR):
        workers.submit(task_id)
        done = await wait_terminal(sessions, task_id)
    assert done.status == TaskStatus.failed and done.error == ErrorCode.internal
    detail = done.error_detail or ""
    assert detail.startswith("SweptAway: no such file: /scratch/"), detail
    assert SECRET not in detail, detail
    assert counted._value.get() == before + 1
    logged = [r for r in caplog.records if task_id in r.getMessage() and (r.exc_info or r.exc_text)]
    assert logged, [r.getMessage() for r in caplog.records]
    text = logging.Formatter().format(logged[0])
    assert "Traceback" in text and "SweptAway" in text and SECRET not in text, text
