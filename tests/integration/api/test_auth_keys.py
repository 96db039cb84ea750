"""API keys end to end: typed format, scopes (401/403/404 matrix), rotation, revocation,
per-key rate limit (429 + Retry-After), concurrent-task cap, operator pages, and a dump of
every table proving no key material is stored.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from fastapi import FastAPI
from sqlalchemy import select

from app.auth import Scope, well_formed
from app.db import repositories
from app.db.models import Base
from app.main import create_app
from app.ratelimit import RateLimiter
from tests.integration.api.conftest import RecordingDispatcher, make_settings

BODY = {"instruction": "find the price", "start_url": "https://93.184.215.14/"}
FROZEN = lambda: 1000.0  # noqa: E731 - the limiter's clock stands still: no timing in tests
W, R, L, A = Scope.tasks_write, Scope.tasks_read, Scope.learnings_read, Scope.admin


@contextlib.asynccontextmanager
async def keyed_app(
    db_url: str, client_host: str = "127.0.0.1", **overrides: Any
) -> AsyncIterator[tuple[FastAPI, httpx.AsyncClient]]:
    settings = make_settings(db_url, api_keys_required=True, **overrides)
    app = create_app(settings, dispatcher=RecordingDispatcher())
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app, client=(client_host, 50000))
        async with httpx.AsyncClient(transport=transport, base_url="http://api.test") as c:
            yield app, c


async def new_key(app: FastAPI, tenant: str, *scopes: Scope) -> str:
    async with app.state.session_factory() as s:
        _, plaintext = await repositories.create_api_key(
            s, tenant_id=tenant, name="t", scopes=scopes
        )
        await s.commit()
    return plaintext


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


async def test_key_format_is_typed_and_checksummed(db_url: str) -> None:
    async with keyed_app(db_url) as (app, _):
        key = await new_key(app, "acme", R)
    assert key.startswith("wa_") and key.count("_") == 2 and well_formed(key)
    flipped = key[:-1] + ("A" if key[-1] != "A" else "B")
    assert not well_formed(flipped)  # a mistyped key fails its checksum


async def test_401_403_404_matrix(db_url: str) -> None:
    async with keyed_app(db_url) as (app, c):
        writer = await new_key(app, "acme", W, R)
        reader = await new_key(app, "acme", R)
        submit_only = await new_key(app, "acme", W)
        learner = await new_key(app, "acme", L)
        other = await new_key(app, "globex", W, R)
        admin = await new_key(app, "acme", A)
        created = await c.post("/v1/tasks", json=BODY, headers=bearer(writer))
        assert created.status_code == 202, created.text
        tid = created.json()["id"]
        for headers in ({}, bearer("nope"), bearer(writer[:-1] + "x"), {"Authorization": writer}):
            resp = await c.get(f"/v1/tasks/{tid}", headers=headers)
            assert resp.status_code == 401 and resp.headers["www-authenticate"] == "Bearer"
        assert (await c.get(f"/v1/tasks/{tid}", headers=bearer(reader))).status_code == 200
        assert (await c.post("/v1/tasks", json=BODY, headers=bearer(reader))).status_code == 403
        assert (await c.get(f"/v1/tasks/{tid}", headers=bearer(submit_only))).status_code == 403
        assert (await c.get("/v1/tasks", headers=bearer(learner))).status_code == 403
        cancel = await c.post(f"/v1/tasks/{tid}/cancel", headers=bearer(reader))
        assert cancel.status_code == 403
        for path in ("", "/steps", "/events", "/screenshots/1"):
            foreign = await c.get(f"/v1/tasks/{tid}{path}", headers=bearer(other))
            assert foreign.status_code == 404, path
            assert tid in foreign.text or path == "/screenshots/1"  # no details, same as absent
        listed = await c.get("/v1/tasks", headers=bearer(other))
        assert listed.json()["items"] == []
        assert (await c.get(f"/v1/tasks/{tid}", headers=bearer(admin))).status_code == 200


async def test_two_active_keys_rotate_and_revocation_is_immediate(db_url: str) -> None:
    async with keyed_app(db_url) as (app, c):
        old = await new_key(app, "acme", R)
        new = await new_key(app, "acme", R)
        for key in (old, new):
            assert (await c.get("/v1/tasks", headers=bearer(key))).status_code == 200
        async with app.state.session_factory() as s:
            rows = await repositories.list_api_keys(s, tenant_id="acme")
            assert await repositories.revoke_api_key(s, key_id=rows[0].prefix, tenant_id=None)
            await s.commit()
        assert (await c.get("/v1/tasks", headers=bearer(old))).status_code == 401
        assert (await c.get("/v1/tasks", headers=bearer(new))).status_code == 200


async def test_per_key_rate_limit_429_with_retry_after(db_url: str) -> None:
    async with keyed_app(db_url) as (app, c):
        app.state.limiter = RateLimiter(per_minute=60, burst=3, clock=FROZEN)
        key = await new_key(app, "acme", R)
        other = await new_key(app, "acme", R)
        answers = [await c.get("/v1/tasks", headers=bearer(key)) for _ in range(4)]
        assert [r.status_code for r in answers] == [200, 200, 200, 429]
        assert answers[0].headers["ratelimit-limit"] == "3"
        assert answers[0].headers["ratelimit-remaining"] == "2"
        assert int(answers[3].headers["retry-after"]) >= 1
        # the bucket is the key's: another key of the same client is unaffected
        assert (await c.get("/v1/tasks", headers=bearer(other))).status_code == 200


async def test_wrong_key_guessing_is_rate_limited_per_address(db_url: str) -> None:
    async with keyed_app(db_url) as (app, c):
        app.state.limiter = RateLimiter(per_minute=60, burst=5, clock=FROZEN)
        codes = [
            (await c.get("/v1/tasks", headers=bearer(f"wa_{i}"))).status_code for i in range(8)
        ]
    assert codes[:5] == [401] * 5 and set(codes[5:]) == {429}


async def test_concurrent_task_cap_per_client(db_url: str) -> None:
    async with keyed_app(db_url, max_active_tasks_per_tenant=2) as (app, c):
        key = await new_key(app, "acme", W, R)
        first = await c.post("/v1/tasks", json=BODY, headers=bearer(key))
        await c.post("/v1/tasks", json=BODY, headers=bearer(key))
        third = await c.post("/v1/tasks", json=BODY, headers=bearer(key))
        assert third.status_code == 429 and int(third.headers["retry-after"]) > 0
        other_client = await new_key(app, "globex", W)
        assert (
            await c.post("/v1/tasks", json=BODY, headers=bearer(other_client))
        ).status_code == 202
        await c.post(f"/v1/tasks/{first.json()['id']}/cancel", headers=bearer(key))
        assert (await c.post("/v1/tasks", json=BODY, headers=bearer(key))).status_code == 202


@pytest.mark.parametrize("path", ["/metrics", "/openapi.json", "/docs"])
async def test_operator_pages_closed_off_loopback_when_keys_required(
    db_url: str, path: str
) -> None:
    async with keyed_app(db_url, client_host="203.0.113.7") as (app, c):
        reader = await new_key(app, "acme", R)
        admin = await new_key(app, "ops", A)
        assert (await c.get(path)).status_code == 401
        expected = 401 if path == "/metrics" else 200  # metrics need admin, docs any key
        assert (await c.get(path, headers=bearer(reader))).status_code == expected
        assert (await c.get(path, headers=bearer(admin))).status_code == 200
    async with keyed_app(db_url, client_host="127.0.0.1", docs_access="loopback") as (_, c):
        assert (await c.get(path)).status_code == 200  # loopback: the operator's own host
    async with keyed_app(db_url, client_host="203.0.113.7", metrics_access="open") as (_, c):
        assert (await c.get("/metrics")).status_code == 200


async def dump_all_rows(app: FastAPI) -> str:
    """Every row of every table, every column, as text."""
    parts: list[str] = []
    async with app.state.session_factory() as s:
        for table in Base.metadata.sorted_tables:
            for row in (await s.execute(select(table))).all():
                parts.extend(repr(value) for value in row)
    return "\n".join(parts)


async def test_database_dump_contains_no_key_material(db_url: str) -> None:
    async with keyed_app(db_url) as (app, c):
        keys = [await new_key(app, "acme", W, R) for _ in range(3)]
        for key in keys:
            assert (await c.post("/v1/tasks", json=BODY, headers=bearer(key))).status_code == 202
        dump = await dump_all_rows(app)
    assert "wa_" in dump  # the public prefixes are there: the dump does read api_keys
    for key in keys:
        secret_part = key.split("_")[1]
        assert key not in dump and secret_part[8:] not in dump
