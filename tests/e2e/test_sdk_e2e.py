"""clients/python against the running service: a shop task end to end with the sync and the
async client, the event stream read in two parts (the second resumes with Last-Event-ID and
repeats nothing), and refused requests as typed exceptions."""

from __future__ import annotations

import pytest
from webagent_client import (
    AsyncClient,
    Client,
    ConflictError,
    NotFoundError,
    TaskCreate,
    TaskStatus,
    ValidationFailedError,
)
from webagent_client.models import EventOut

from tests.e2e.conftest import ENDLESS, SHOP, Service
from tests.support.sites import TestSite, cheapest

pytestmark = [
    pytest.mark.browser,
    pytest.mark.services,
    pytest.mark.parametrize("service", ["embedded"], indirect=True),
]

FIRST_PART = 3  # events read before the first stream is let go


def expected_answer() -> str:
    return f"{cheapest().name} at {cheapest().price}"


def check_stream(first: list[EventOut], rest: list[EventOut], full: list[EventOut]) -> None:
    """The two parts are the whole stream: in order, nothing repeated, nothing missed."""
    assert len(first) == FIRST_PART
    seqs = [e.seq for e in first + rest]
    assert seqs == [e.seq for e in full] == sorted(set(seqs))
    assert seqs[0] == 1 and full[-1].type == "task.finished"
    assert [e.type for e in first + rest] == [e.type for e in full]


def test_sync_client_runs_a_task_and_resumes_its_events(
    service: Service, e2e_site: TestSite
) -> None:
    with Client(service.base_url) as client:
        task = client.submit_task(TaskCreate(instruction=SHOP, start_url=e2e_site.url("/shop")))
        assert task.status == TaskStatus.queued and task.instruction == SHOP
        first: list[EventOut] = []
        for event in client.events(task.id):  # let go of the stream mid-run
            first.append(event)
            if len(first) == FIRST_PART:
                break
        rest = list(client.events(task.id, after=first[-1].seq))
        done = client.wait_task(task.id, timeout_s=60)
        full = list(client.events(task.id))
        steps = client.list_steps(task.id).steps
        listed = client.list_tasks(status="succeeded", domain="127.0.0.1").items
        ledger = client.get_ledger(task.id)
        with pytest.raises(ConflictError) as finished:
            client.cancel_task(task.id)
    check_stream(first, rest, full)
    assert done.status == TaskStatus.succeeded and done.result is not None
    assert done.result.answer == expected_answer() and done.result.success is True
    assert steps[0].action["action"] == "navigate" and steps[-1].action["action"] == "done"
    assert task.id in [t.id for t in listed]
    assert ledger.snapshot is not None
    assert finished.value.code == "conflict" and finished.value.status_code == 409


def test_sync_client_cancels_a_running_task(service: Service, e2e_site: TestSite) -> None:
    with Client(service.base_url) as client:
        body = TaskCreate(instruction=ENDLESS, start_url=e2e_site.url("/counter/1"), max_steps=100)
        task = client.submit_task(body)
        for event in client.events(task.id):
            if event.type == "step.started":
                break
        cancelling = client.cancel_task(task.id)
        done = client.wait_task(task.id, timeout_s=60)
        events = list(client.events(task.id))
    assert cancelling.cancel_requested is True
    assert done.status == TaskStatus.cancelled
    assert events[-1].type == "task.finished"


async def test_async_client_runs_a_task_and_resumes_its_events(
    service: Service, e2e_site: TestSite
) -> None:
    async with AsyncClient(service.base_url) as client:
        body = TaskCreate(instruction=SHOP, start_url=e2e_site.url("/shop"), max_steps=10)
        task = await client.submit_task(body, idempotency_key="sdk-async-1")
        again = await client.submit_task(body, idempotency_key="sdk-async-1")
        first: list[EventOut] = []
        async for event in client.events(task.id):
            first.append(event)
            if len(first) == FIRST_PART:
                break
        rest = [e async for e in client.events(task.id, after=first[-1].seq)]
        done = await client.wait_task(task.id, timeout_s=60)
        full = [e async for e in client.events(task.id)]
    check_stream(first, rest, full)
    assert again.id == task.id and task.max_steps == 10
    assert done.status == TaskStatus.succeeded and done.result is not None
    assert done.result.answer == expected_answer()


def test_refusals_are_typed_problem_errors(service: Service) -> None:
    with Client(service.base_url) as client:
        with pytest.raises(NotFoundError) as missing:
            client.get_task("no-such-task")
        with pytest.raises(ValidationFailedError) as invalid:
            client.create_profile("not a valid name!")
        with pytest.raises(NotFoundError):
            list(client.events("no-such-task"))
        profile = client.create_profile("sdk-profile")
        assert "sdk-profile" in [p.name for p in client.list_profiles()]
        client.delete_profile("sdk-profile")
        assert "sdk-profile" not in [p.name for p in client.list_profiles()]
    assert missing.value.status_code == 404 and missing.value.code == "not_found"
    assert missing.value.problem is not None
    assert missing.value.problem.instance == "/v1/tasks/no-such-task"
    assert invalid.value.status_code == 422
    assert [e.loc for e in invalid.value.errors] == [["body", "name"]]
    assert profile.name == "sdk-profile"
