"""HTTP metrics of the API: requests by method, route template and status, and latency.

A pure ASGI middleware (streaming responses such as SSE are counted when they end). The
route label is the matched path template (`/v1/tasks/{task_id}`), never the raw path, so
task ids do not become label values; unmatched paths count as `unmatched`.
"""

from __future__ import annotations

import time
from typing import Any

from prometheus_client import Counter, Histogram

HTTP_REQUESTS = Counter(
    "webagent_http_requests_total", "API requests.", ["method", "route", "status"]
)
HTTP_LATENCY = Histogram(
    "webagent_http_request_duration_seconds",
    "API request duration (until the response ends).",
    ["method", "route"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120),
)
UNMATCHED = "unmatched"

Scope = dict[str, Any]


class HttpMetrics:
    """ASGI middleware recording HTTP_REQUESTS and HTTP_LATENCY."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500  # an exception before the response started

        async def sending(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            route = getattr(scope.get("route"), "path", None) or UNMATCHED
            method = scope.get("method", "GET")
            HTTP_REQUESTS.labels(method, route, str(status)).inc()
            HTTP_LATENCY.labels(method, route).observe(time.perf_counter() - started)
