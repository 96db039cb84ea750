"""Metrics helpers move the right series and the exposition carries them."""

from __future__ import annotations

from app import metrics


def test_task_counters_and_duration() -> None:
    before = metrics.sample_value("webagent_tasks_finished_total", {"status": "succeeded"})
    count_before = metrics.sample_value("webagent_task_duration_seconds_count")
    metrics.task_submitted()
    metrics.task_finished("succeeded", 12.5)
    metrics.task_finished("cancelled", None)
    after = metrics.sample_value("webagent_tasks_finished_total", {"status": "succeeded"})
    assert after == before + 1
    assert metrics.sample_value("webagent_task_duration_seconds_count") == count_before + 1


def test_llm_call_records_requests_tokens_latency() -> None:
    labels = {"role": "planner", "model": "m1", "outcome": "ok"}
    req0 = metrics.sample_value("webagent_llm_requests_total", labels)
    tok0 = metrics.sample_value(
        "webagent_llm_tokens_total", {"role": "planner", "direction": "input"}
    )
    metrics.observe_llm_call("planner", "m1", "ok", 150.0, input_tokens=100, output_tokens=7)
    assert metrics.sample_value("webagent_llm_requests_total", labels) == req0 + 1
    tok1 = metrics.sample_value(
        "webagent_llm_tokens_total", {"role": "planner", "direction": "input"}
    )
    assert tok1 == tok0 + 100
    # 150 s falls into the 160 s bucket, not into 120 s
    le160 = metrics.sample_value(
        "webagent_llm_latency_seconds_bucket", {"role": "planner", "le": "160.0"}
    )
    le120 = metrics.sample_value(
        "webagent_llm_latency_seconds_bucket", {"role": "planner", "le": "120.0"}
    )
    assert le160 == le120 + 1


def test_queue_depth_is_computed_at_scrape_time() -> None:
    depth = {"n": 3}
    metrics.set_queue_depth_callback(lambda: depth["n"])
    try:
        assert metrics.sample_value("webagent_queue_depth") == 3
        depth["n"] = 9
        body, content_type = metrics.render_latest()
        assert b"webagent_queue_depth 9.0" in body
        assert content_type.startswith("text/plain")
    finally:
        metrics.set_queue_depth_callback(None)
    metrics.set_queue_depth(4)
    assert metrics.sample_value("webagent_queue_depth") == 4


def test_failing_depth_callback_does_not_break_scrape() -> None:
    metrics.set_queue_depth(2)

    def broken() -> int:
        raise ConnectionError("redis down")

    metrics.set_queue_depth_callback(broken)
    try:
        assert metrics.sample_value("webagent_queue_depth") == 2
    finally:
        metrics.set_queue_depth_callback(None)


def test_gauges_and_steps() -> None:
    metrics.set_browsers("idle", 2)
    assert metrics.sample_value("webagent_browsers", {"state": "idle"}) == 2
    c0 = metrics.sample_value("webagent_step_duration_seconds_count", {"action": "click"})
    metrics.observe_step("click", 0.3)
    assert (
        metrics.sample_value("webagent_step_duration_seconds_count", {"action": "click"}) == c0 + 1
    )
    s0 = metrics.sample_value("webagent_sse_connections")
    metrics.sse_opened()
    assert metrics.sample_value("webagent_sse_connections") == s0 + 1
    metrics.sse_closed()
    assert metrics.sample_value("webagent_sse_connections") == s0
