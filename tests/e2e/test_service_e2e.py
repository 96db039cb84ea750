"""The issue's acceptance through the public HTTP API, in both deployments.

Every test runs against `service` (embedded: SQLite + in-process workers; production:
Postgres + Redis/rq + a real `webagent worker` process), a real Chromium, the scripted
OpenAI-compatible LLM over HTTP and the local test site.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.e2e.conftest import (
    ENDLESS,
    SHOP,
    SLOW_SHOP,
    Service,
    submit,
    wait_for,
    wait_terminal,
)
from tests.support.sites import TestSite, cheapest
from workers.cli.client import parse_sse

pytestmark = [pytest.mark.browser, pytest.mark.services]

JPEG_MAGIC = b"\xff\xd8\xff"


def expected_answer() -> str:
    product = cheapest()
    return f"{product.name} at {product.price}"


def read_sse(
    client: httpx.Client, task_id: str, *, last_event_id: int | None = None, stop_after: int = 0
) -> list[dict[str, Any]]:
    """Events of one SSE connection; stops after `stop_after` events (0: until the end)."""
    headers = {"Last-Event-ID": str(last_event_id)} if last_event_id is not None else {}
    events: list[dict[str, Any]] = []
    with client.stream(
        "GET", f"/v1/tasks/{task_id}/events", headers=headers, timeout=60.0
    ) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("text/event-stream")
        for kind, event_id, data in parse_sse(response.iter_lines()):
            event = json.loads(data)
            assert kind == event["type"] and event_id == str(event["seq"])
            events.append(event)
            if stop_after and len(events) >= stop_after:
                break
    return events


def scrape(url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Prometheus text → {(sample name, sorted labels): value}."""
    text = httpx.get(url, timeout=10.0).text
    samples: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            samples[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return samples


def total(samples: dict[tuple[str, tuple[tuple[str, str], ...]], float], name: str) -> float:
    """Sum of a sample over every label set."""
    return sum(value for (sample, _), value in samples.items() if sample == name)


def test_shop_task_succeeds_with_history_steps_and_screenshot(
    service: Service, e2e_site: TestSite
) -> None:
    with service.client() as client:
        task_id = submit(client, SHOP, e2e_site.url("/"))
        task = wait_terminal(client, task_id)
        assert task["status"] == "succeeded", task
        grounding = task["result"].pop("grounding")
        assert task["result"] == {"answer": expected_answer(), "success": True, "data": None}
        assert grounding["verdict"] == "verified"  # the price was on the page the run saw
        assert task["usage"]["steps"] >= 3 and task["usage"]["llm_calls"] >= 3
        assert task["usage"]["input_tokens"] > 0 and task["domain"] == "127.0.0.1"

        history = client.get("/v1/tasks", params={"status": "succeeded", "domain": "127.0.0.1"})
        assert history.status_code == 200
        items = history.json()["items"]
        assert task_id in [t["id"] for t in items]
        assert all(t["status"] == "succeeded" and t["domain"] == "127.0.0.1" for t in items)
        others = client.get("/v1/tasks", params={"domain": "example.com"}).json()["items"]
        assert task_id not in [t["id"] for t in others]
        failed = client.get("/v1/tasks", params={"status": "failed"}).json()["items"]
        assert task_id not in [t["id"] for t in failed]

        steps = client.get(f"/v1/tasks/{task_id}/steps").json()["steps"]
        # step 0 opens the start page; steps 1..N are the model's
        assert [s["step"] for s in steps] == list(range(task["usage"]["steps"] + 1))
        assert steps[0]["action"]["action"] == "navigate"
        assert steps[0]["action"]["args"] == {"url": e2e_site.url("/")}
        assert [s["action"]["action"] for s in steps[1:3]] == ["click", "click"]
        assert steps[-1]["action"]["action"] == "done"
        assert steps[1]["screenshot_url"] == f"/v1/tasks/{task_id}/screenshots/1"
        assert steps[1]["observation"] is not None

        shot = client.get(f"/v1/tasks/{task_id}/screenshots/1")
        assert shot.status_code == 200 and shot.headers["content-type"] == "image/jpeg"
        assert shot.content.startswith(JPEG_MAGIC) and len(shot.content) > 1000
        assert client.get(f"/v1/tasks/{task_id}/screenshots/999").status_code == 404


def test_sse_replays_every_persisted_event(service: Service, e2e_site: TestSite) -> None:
    with service.client() as client:
        task_id = submit(client, SHOP, e2e_site.url("/shop"))
        assert wait_terminal(client, task_id)["status"] == "succeeded"
        events = read_sse(client, task_id)
    rows = service.stored_events(task_id)
    assert [e["seq"] for e in events] == list(range(1, len(rows) + 1))
    assert [e["seq"] for e in events] == [r.seq for r in rows]
    assert [e["type"] for e in events] == [r.type for r in rows]
    assert events[0]["type"] == "task.started" and events[-1]["type"] == "task.finished"
    assert events[-1]["data"]["status"] == "succeeded"
    assert events[-1]["data"]["answer"] == expected_answer()


def test_sse_resume_with_last_event_id_has_no_gap_or_duplicate(
    service: Service, e2e_site: TestSite
) -> None:
    with service.client() as client:
        task_id = submit(client, SLOW_SHOP, e2e_site.url("/shop"))
        first = read_sse(client, task_id, stop_after=3)
        assert "task.finished" not in [e["type"] for e in first]
        assert client.get(f"/v1/tasks/{task_id}").json()["status"] in ("queued", "running")
        time.sleep(0.5)  # events keep coming while nobody listens
        rest = read_sse(client, task_id, last_event_id=first[-1]["seq"])
    seqs = [e["seq"] for e in first + rest]
    assert seqs == list(range(1, len(seqs) + 1)), seqs
    assert rest[-1]["type"] == "task.finished" and rest[-1]["data"]["status"] == "succeeded"
    assert len(seqs) == len(service.stored_events(task_id))


def test_cancel_running_task_then_cancel_again_conflicts(
    service: Service, e2e_site: TestSite
) -> None:
    with service.client() as client:
        task_id = submit(client, ENDLESS, e2e_site.url("/counter/1"), max_steps=100)
        deadline = time.monotonic() + 60
        while not client.get(f"/v1/tasks/{task_id}/steps").json()["steps"]:
            assert time.monotonic() < deadline, "the endless task never started a step"
            time.sleep(0.1)
        cancelled = client.post(f"/v1/tasks/{task_id}/cancel")
        assert cancelled.status_code == 202, cancelled.text
        assert cancelled.json()["cancel_requested"] is True
        begun = client.get(f"/v1/tasks/{task_id}/steps").json()["steps"][-1]["step"]
        task = wait_terminal(client, task_id, timeout=30)
        assert task["status"] == "cancelled", task
        # the step running when the flag was set may finish (its row can still be on its way
        # when `begun` is read: step rows are written behind the loop); no later step starts
        assert task["usage"]["steps"] <= begun + 1
        events = read_sse(client, task_id)
        assert events[-1]["type"] == "task.finished"
        assert events[-1]["data"]["status"] == "cancelled"
        again = client.post(f"/v1/tasks/{task_id}/cancel")
        assert again.status_code == 409, again.text


def test_cancel_queued_task_ends_it_at_once(service: Service, e2e_site: TestSite) -> None:
    """With the only worker busy, a cancelled queued task never runs and says so on SSE."""
    with service.client() as client:
        busy = submit(client, ENDLESS, e2e_site.url("/counter/1"), max_steps=100)
        wait_for(client, busy, ("running",), timeout=30)
        queued = submit(client, SHOP, e2e_site.url("/shop"))
        assert client.get(f"/v1/tasks/{queued}").json()["status"] == "queued"
        live: list[dict[str, Any]] = []

        def watch() -> None:
            with service.client() as own:
                live.extend(read_sse(own, queued))

        watcher = threading.Thread(target=watch)
        watcher.start()
        time.sleep(0.5)  # the viewer is connected and waiting
        cancelled = client.post(f"/v1/tasks/{queued}/cancel")
        assert cancelled.status_code == 202, cancelled.text
        assert cancelled.json()["status"] == "cancelled"
        watcher.join(15)
        assert not watcher.is_alive(), "the live stream did not end after the cancel"
        events = read_sse(client, queued)
        assert [e["type"] for e in events] == ["task.finished"] and live == events
        assert events[0]["seq"] == 1 and events[0]["data"]["status"] == "cancelled"
        assert client.post(f"/v1/tasks/{busy}/cancel").status_code == 202
        assert wait_terminal(client, busy, timeout=30)["status"] == "cancelled"
        # a positive signal that the worker has dequeued (and skipped) the cancelled job:
        # a task queued after it has run to its end (one worker, jobs in queue order)
        after = submit(client, SHOP, e2e_site.url("/shop"))
        assert wait_terminal(client, after, timeout=60)["status"] == "succeeded"
        task = client.get(f"/v1/tasks/{queued}").json()
        assert task["status"] == "cancelled" and task["started_at"] is None
        assert len(service.stored_events(queued)) == 1


def test_timeout_on_endless_site(service: Service, e2e_site: TestSite) -> None:
    with service.client() as client:
        task_id = submit(client, ENDLESS, e2e_site.url("/counter/1"), timeout_s=6)
        task = wait_terminal(client, task_id, timeout=45)
    assert task["status"] == "timed_out", task
    assert task["error"] == "timeout" and task["result"]["success"] is False
    started, finished = task["started_at"], task["finished_at"]
    assert started is not None and finished is not None
    # what the run consumed before the deadline is kept, not reset to zero
    assert task["usage"]["steps"] >= 1 and task["usage"]["llm_calls"] >= 1, task["usage"]


def test_metrics_count_submissions_finishes_llm_calls_and_steps(
    service: Service, e2e_site: TestSite
) -> None:
    api_metrics = service.base_url + "/metrics"
    # in production the worker process counts finishes, LLM calls and steps on its own port
    worker_metrics = service.worker_metrics_url or api_metrics
    api_before, worker_before = scrape(api_metrics), scrape(worker_metrics)
    with service.client() as client:
        task_id = submit(client, SHOP, e2e_site.url("/shop"))
        # task.finished is emitted after the worker counted the finish: no race with the scrape
        assert read_sse(client, task_id)[-1]["data"]["status"] == "succeeded"
    api_after, worker_after = scrape(api_metrics), scrape(worker_metrics)

    submitted = ("webagent_tasks_submitted_total", ())
    assert api_after[submitted] == api_before.get(submitted, 0.0) + 1
    succeeded = ("webagent_tasks_finished_total", (("status", "succeeded"),))
    assert worker_after[succeeded] == worker_before.get(succeeded, 0.0) + 1
    for name in (
        "webagent_llm_requests_total",
        "webagent_step_duration_seconds_count",
        "webagent_task_duration_seconds_count",
    ):
        assert total(worker_after, name) > total(worker_before, name), name
    assert ("webagent_queue_depth", ()) in api_after


def test_concurrent_clients_see_the_same_stream(service: Service, e2e_site: TestSite) -> None:
    """Two live viewers of one running task receive identical, complete sequences."""
    with service.client() as client:
        task_id = submit(client, SLOW_SHOP, e2e_site.url("/shop"))
        seen: list[list[dict[str, Any]]] = [[], []]

        def watch(i: int) -> None:
            with service.client() as own:
                seen[i] = read_sse(own, task_id)

        threads = [threading.Thread(target=watch, args=(i,)) for i in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
        wait_for(client, task_id, ("succeeded",), timeout=5)
    assert seen[0] and [e["seq"] for e in seen[0]] == [e["seq"] for e in seen[1]]
    assert [e["seq"] for e in seen[0]] == list(range(1, len(seen[0]) + 1))
