"""Prometheus metrics (prefix `webagent_`, default registry, no per-task/per-domain labels).

Workers and the API record through the helper functions so label sets stay bounded.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

_DURATION_BUCKETS = (1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 3600, float("inf"))
_WAIT_BUCKETS = (0.01, 0.05, 0.1, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, float("inf"))
_STEP_BUCKETS = (0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, float("inf"))
_LLM_BUCKETS = (0.25, 0.5, 1, 2, 5, 10, 20, 40, 80, 120, 160, float("inf"))

TASKS_SUBMITTED = Counter("webagent_tasks_submitted_total", "Tasks accepted by the API.")
TASKS_FINISHED = Counter(
    "webagent_tasks_finished_total", "Tasks that reached a terminal status.", ["status"]
)
TASKS_LOST = Counter(
    "webagent_tasks_lost_total", "Running tasks the reaper failed as worker_lost (no heartbeat)."
)
TASK_ERRORS = Counter(
    "webagent_task_errors_total",
    "Tasks that ended with an error, by its code (app.contracts.ErrorCode).",
    ["error"],
)
INTERNAL_ERRORS = Counter(
    "webagent_internal_errors_total",
    "Tasks that ended with error internal, by the exception's class (issue 31 item 1).",
    ["exception"],
)
TOOL_CRASHES = Counter(
    "webagent_tool_crashes_total",
    "Tool calls whose handler raised: answered as a tool_crashed failure, the run goes on.",
    ["tool", "exception"],
)
TASK_DURATION = Histogram(
    "webagent_task_duration_seconds",
    "Wall time from start to terminal status.",
    buckets=_DURATION_BUCKETS,
)
QUEUE_WAIT = Histogram(
    "webagent_queue_wait_seconds", "Time from submission to a worker start.", buckets=_WAIT_BUCKETS
)
STEP_DURATION = Histogram(
    "webagent_step_duration_seconds", "Agent step wall time.", ["action"], buckets=_STEP_BUCKETS
)
LLM_REQUESTS = Counter(
    "webagent_llm_requests_total", "LLM calls by role and outcome.", ["role", "model", "outcome"]
)
LLM_TOKENS = Counter("webagent_llm_tokens_total", "LLM tokens.", ["role", "direction"])
LLM_COST = Counter(
    "webagent_llm_cost_usd_total",
    "Model spend in USD by model and tenant (calls of models WEBAGENT_LLM_PRICES prices).",
    ["model", "tenant"],
)
LLM_LATENCY = Histogram(
    "webagent_llm_latency_seconds", "LLM call latency.", ["role"], buckets=_LLM_BUCKETS
)
BROWSERS = Gauge("webagent_browsers", "Pooled browsers by state.", ["state"])
SSE_CONNECTIONS = Gauge("webagent_sse_connections", "Open SSE event streams.")
APPROVALS = Counter(
    "webagent_approvals_total",
    "Decisions on paused tasks by kind and outcome (approved, denied, expired).",
    ["kind", "decision"],
)
APPROVAL_WAIT = Histogram(
    "webagent_approval_wait_seconds", "Time a task waited for a person.", buckets=_WAIT_BUCKETS
)
DATA_DELETED_ROWS = Counter(
    "webagent_data_deleted_rows_total",
    "Task data rows deleted, by table and why (retention: the pruner; request: DELETE).",
    ["table", "reason"],
)
DATA_DELETED_BYTES = Counter(
    "webagent_data_deleted_bytes_total",
    "Bytes deleted with task data (artifact and attachment blobs, dropped event partitions).",
    ["reason"],
)
TASKS_RUNNING_OVERDUE = Gauge(
    "webagent_tasks_running_overdue",
    "Live tasks still running (or awaiting approval) past their timeout (the reaper's count).",
)

DepthCallback = Callable[[], int]


class QueueDepthCollector(Collector):
    """`webagent_queue_depth` computed at scrape time by a callback (as rq-exporter does)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._callback: DepthCallback | None = None
        self._last = 0

    def set_callback(self, callback: DepthCallback | None) -> None:
        with self._lock:
            self._callback = callback

    def set_value(self, depth: int) -> None:
        """Cache a depth read asynchronously (the API refreshes it before rendering)."""
        with self._lock:
            self._last = depth

    def collect(self) -> Iterator[GaugeMetricFamily]:
        with self._lock:
            callback = self._callback
            depth = self._last
        if callback is not None:
            # the callback reads Redis, which its process has loaded already; a process
            # without one (e.g. `webagent observe`) need not import the client
            from redis.exceptions import RedisError

            try:
                depth = int(callback())
            except (RedisError, OSError, RuntimeError, ValueError, TimeoutError):
                depth = self._last
        yield GaugeMetricFamily("webagent_queue_depth", "Tasks waiting in the queue.", value=depth)


QUEUE_DEPTH = QueueDepthCollector()
REGISTRY.register(QUEUE_DEPTH)


def task_submitted() -> None:
    TASKS_SUBMITTED.inc()


def task_finished(status: str, duration: float | None) -> None:
    """Count a terminal status; duration is None when the task never started."""
    TASKS_FINISHED.labels(status=str(status)).inc()
    if duration is not None:
        TASK_DURATION.observe(max(duration, 0.0))


def task_error(error: str | None) -> None:
    """Count the error code of a task that ended with one (failed, timed out)."""
    if error:
        TASK_ERRORS.labels(error=str(error)).inc()


def internal_error(exception: BaseException) -> None:
    """Count a task ended `internal` by an unexpected exception, by its class."""
    INTERNAL_ERRORS.labels(exception=type(exception).__name__).inc()


def tool_crashed(tool: str, exception: BaseException) -> None:
    TOOL_CRASHES.labels(tool=tool, exception=type(exception).__name__).inc()


def task_lost() -> None:
    TASKS_LOST.inc()


def approval_decided(kind: str, decision: str, waited_s: float) -> None:
    """kind: sensitive_action | challenge | login; decision: approved | denied | expired."""
    APPROVALS.labels(kind=kind, decision=decision).inc()
    APPROVAL_WAIT.observe(max(waited_s, 0.0))


def observe_queue_wait(seconds: float) -> None:
    QUEUE_WAIT.observe(max(seconds, 0.0))


def observe_step(action: str, seconds: float) -> None:
    STEP_DURATION.labels(action=action).observe(max(seconds, 0.0))


def observe_llm_call(
    role: str,
    model: str,
    outcome: str,
    latency: float,
    input_tokens: int = 0,
    output_tokens: int = 0,
) -> None:
    """One LLM request: outcome is e.g. 'ok', 'error', 'timeout', 'parse_error'."""
    LLM_REQUESTS.labels(role=role, model=model, outcome=outcome).inc()
    LLM_LATENCY.labels(role=role).observe(max(latency, 0.0))
    if input_tokens:
        LLM_TOKENS.labels(role=role, direction="input").inc(input_tokens)
    if output_tokens:
        LLM_TOKENS.labels(role=role, direction="output").inc(output_tokens)


def llm_cost(model: str, tenant: str, usd: float) -> None:
    """One priced model call's spend."""
    if usd > 0:
        LLM_COST.labels(model=model, tenant=tenant).inc(usd)


def set_browsers(state: str, n: int) -> None:
    BROWSERS.labels(state=state).set(n)


def set_queue_depth_callback(callback: DepthCallback | None) -> None:
    """Register a synchronous depth reader evaluated at every scrape (None to clear)."""
    QUEUE_DEPTH.set_callback(callback)


def set_queue_depth(depth: int) -> None:
    QUEUE_DEPTH.set_value(depth)


def sse_opened() -> None:
    SSE_CONNECTIONS.inc()


def sse_closed() -> None:
    SSE_CONNECTIONS.dec()


def data_deleted(reason: str, rows: dict[str, int], size_bytes: int) -> None:
    """Rows (by table) and bytes a deletion removed; reason "retention" or "request"."""
    for table, n in rows.items():
        if n:
            DATA_DELETED_ROWS.labels(table, reason).inc(n)
    DATA_DELETED_BYTES.labels(reason).inc(size_bytes)


def set_tasks_overdue(n: int) -> None:
    TASKS_RUNNING_OVERDUE.set(n)


def render_latest() -> tuple[bytes, str]:
    """Prometheus text exposition of the default registry and its content type."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST


def sample_value(name: str, labels: dict[str, str] | None = None) -> float:
    """Current value of one sample (0.0 when absent): lets tests read counters and gauges."""
    value = REGISTRY.get_sample_value(name, labels or {})
    return 0.0 if value is None else float(value)
