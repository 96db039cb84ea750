"""Browser profiles over HTTP, and the task fields of results: output_schema, profile."""

from __future__ import annotations

import httpx


async def test_profile_lifecycle(client: httpx.AsyncClient) -> None:
    created = await client.post("/v1/profiles", json={"name": "shop-login"})
    assert created.status_code == 201
    body = created.json()
    assert body["name"] == "shop-login" and body["has_state"] is False and body["saved_at"] is None
    assert (await client.post("/v1/profiles", json={"name": "shop-login"})).status_code == 409
    listed = (await client.get("/v1/profiles")).json()["items"]
    assert [p["name"] for p in listed] == ["shop-login"]
    assert (await client.get("/v1/profiles/shop-login")).json()["name"] == "shop-login"
    assert (await client.delete("/v1/profiles/shop-login")).status_code == 204
    assert (await client.get("/v1/profiles/shop-login")).status_code == 404
    assert (await client.delete("/v1/profiles/shop-login")).status_code == 404


async def test_profile_names_are_checked(client: httpx.AsyncClient) -> None:
    for bad in ("", "has space", "x" * 65, "a/b"):
        r = await client.post("/v1/profiles", json={"name": bad})
        assert r.status_code == 422, bad
    assert (await client.post("/v1/profiles", json={"name": "a", "extra": 1})).status_code == 422


async def test_task_profile_fields(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/tasks", json={"instruction": "x", "profile": "nope"})
    assert r.status_code == 422 and "POST /v1/profiles" in r.text
    r = await client.post("/v1/tasks", json={"instruction": "x", "save_profile": True})
    assert r.status_code == 422 and "save_profile needs a profile" in r.text
    await client.post("/v1/profiles", json={"name": "mine"})
    body = {"instruction": "x", "profile": "mine", "save_profile": True}
    task = (await client.post("/v1/tasks", json=body)).json()
    assert (task["profile"], task["save_profile"]) == ("mine", True)
    assert (await client.get(f"/v1/tasks/{task['id']}")).json()["profile"] == "mine"


async def test_output_schema_is_validated_and_echoed(client: httpx.AsyncClient) -> None:
    r = await client.post("/v1/tasks", json={"instruction": "x", "output_schema": {"type": 5}})
    assert r.status_code == 422
    assert r.json()["errors"][0]["loc"] == ["body", "output_schema"]
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    task = (
        await client.post("/v1/tasks", json={"instruction": "x", "output_schema": schema})
    ).json()
    assert task["output_schema"] == schema and task["result"]["data"] is None
