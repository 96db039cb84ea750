"""Task policy fields over HTTP: task_profile, forbid_login, private_regions (migration 0007)."""

from __future__ import annotations

from typing import Any

import httpx

from app.db import repositories

BODY = {"instruction": "read the opening hours", "start_url": "https://93.184.215.14/shop"}


async def test_policy_fields_are_stored_returned_and_carried_to_the_worker(
    client: httpx.AsyncClient, app: object
) -> None:
    body = {
        **BODY,
        "task_profile": "research",
        "forbid_login": True,
        "private_regions": ["  #inbox ", "[aria-label=Messages]"],
    }
    resp = await client.post("/v1/tasks", json=body)
    assert resp.status_code == 202, resp.text
    task = resp.json()
    assert task["task_profile"] == "research"
    assert task["forbid_login"] is True
    assert task["private_regions"] == ["#inbox", "[aria-label=Messages]"]
    async with app.state.session_factory() as s:  # type: ignore[attr-defined]
        row = await repositories.get_task(s, task_id=task["id"])
        assert row is not None
        spec = repositories.task_to_spec(row)
    assert spec.task_profile == "research" and spec.forbid_login
    assert spec.private_regions == ("#inbox", "[aria-label=Messages]")


async def test_defaults_are_the_general_profile(client: httpx.AsyncClient) -> None:
    task = (await client.post("/v1/tasks", json=BODY)).json()
    assert (task["task_profile"], task["forbid_login"], task["private_regions"]) == (
        "general",
        False,
        [],
    )
    assert task["allowed_domains"] == []


async def test_data_entry_is_pinned_to_its_start_host(client: httpx.AsyncClient) -> None:
    task = (await client.post("/v1/tasks", json={**BODY, "task_profile": "data_entry"})).json()
    assert task["allowed_domains"] == ["93.184.215.14"]
    domains = ["93.184.215.14", "forms.example"]
    listed = {**BODY, "task_profile": "data_entry", "allowed_domains": domains}
    resp = await client.post("/v1/tasks", json=listed)
    assert resp.json()["allowed_domains"] == domains  # an explicit list is kept as given


async def test_bad_policy_input_is_a_422_naming_the_field(client: httpx.AsyncClient) -> None:
    cases: list[tuple[dict[str, Any], str]] = [
        ({"task_profile": "admin"}, "task_profile"),
        ({"private_regions": ["  "]}, "private_regions"),
        ({"private_regions": ["x" * 301]}, "private_regions"),
        ({"private_regions": ["#a { color: red }"]}, "private_regions"),
        ({"private_regions": ["a\u0000b"]}, "private_regions"),
        ({"forbid_login": "maybe"}, "forbid_login"),
        ({"task_profile": "data_entry", "start_url": None}, "allowed_domains"),
    ]
    for extra, field in cases:
        resp = await client.post("/v1/tasks", json={**BODY, **extra})
        assert resp.status_code == 422, (extra, resp.text)
        assert field in resp.text, (extra, resp.text)
