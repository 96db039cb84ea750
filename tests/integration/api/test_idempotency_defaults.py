"""Idempotency-Key: a body equal after defaults are applied is the same request."""

from __future__ import annotations

import httpx

BODY = {"instruction": "buy a mug", "start_url": "https://93.184.215.14/shop"}


async def test_spelled_out_defaults_are_the_same_request(client: httpx.AsyncClient) -> None:
    headers = {"Idempotency-Key": "defaults-1"}
    first = await client.post("/v1/tasks", json=BODY, headers=headers)
    assert first.status_code == 202, first.text
    task = first.json()
    explicit = {**BODY, "max_steps": task["max_steps"], "timeout_s": task["timeout_s"]}
    again = await client.post("/v1/tasks", json=explicit, headers=headers)
    assert again.status_code in (200, 202), again.text
    assert again.json()["id"] == task["id"]
    other = {**BODY, "max_steps": task["max_steps"] + 1}
    assert (await client.post("/v1/tasks", json=other, headers=headers)).status_code == 409
