"""API HTTP metrics: by method, route template (never a raw task id) and status."""

from __future__ import annotations

import httpx

from app.metrics import sample_value


def count(method: str, route: str, status: str) -> float:
    labels = {"method": method, "route": route, "status": status}
    return sample_value("webagent_http_requests_total", labels) or 0.0


async def test_requests_are_counted_by_route_template(client: httpx.AsyncClient) -> None:
    route = "/v1/tasks/{task_id}"
    before_missing = count("GET", route, "404")
    before_created = count("POST", "/v1/tasks", "202")
    before_unmatched = count("GET", "unmatched", "404")
    task = (await client.post("/v1/tasks", json={"instruction": "x"})).json()
    await client.get(f"/v1/tasks/{'0' * 32}")
    await client.get("/no/such/path")
    assert count("POST", "/v1/tasks", "202") == before_created + 1
    assert count("GET", route, "404") == before_missing + 1
    assert count("GET", "unmatched", "404") == before_unmatched + 1
    scrape = (await client.get("/metrics")).text
    assert "webagent_http_request_duration_seconds_bucket" in scrape
    assert task["id"] not in scrape  # ids never become label values
