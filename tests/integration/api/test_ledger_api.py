"""GET /v1/tasks/{id}/ledger: the snapshot and the append-only rows, tenant-isolated."""

from __future__ import annotations

import httpx
from fastapi import FastAPI

from app.contracts import DEFAULT_TENANT
from app.db import repositories
from app.main import create_app
from tests.integration.api.conftest import RecordingDispatcher, make_settings, running
from tests.support.task_rows import add_task
from workers.adapters.memory_store import DbMemoryStore
from workers.agent.memory.ledger import Ledger, StepOutcome

URL = "https://shop.test/cart"


async def _task(app: FastAPI, tenant_id: str = DEFAULT_TENANT) -> str:
    async with app.state.session_factory() as s:
        task = await add_task(s, tenant_id=tenant_id, instruction="buy", start_url=URL)
    return str(task.id)


async def _run(app: FastAPI, task_id: str, tenant_id: str = DEFAULT_TENANT) -> Ledger:
    store = DbMemoryStore(app.state.session_factory, task_id=task_id, tenant_id=tenant_id)
    ledger = Ledger(goal="buy")
    for n in (1, 2):
        outcome = StepOutcome(n, URL, (f"click(ref={n}:1) -> ok",), memory=f"m{n}")
        ledger.record_step(outcome)
        await store.append_step(outcome)
    fact = ledger.record_fact("total", "12 EUR", category="derived", confidence=0.8, step=2)
    await store.append_fact(fact, "shop.test")
    dead = ledger.mark_dead_end("Pay button covered", URL, "postcondition_miss", step=2)
    assert dead is not None
    await store.record_dead_end("shop.test", dead)
    await store.append_episodic(ledger.note("steps 1-2 distilled: cart opened", 2, "summary"))
    await store.save_ledger(ledger.to_dict())
    await store.flush()  # the writes run behind the caller
    return ledger


async def test_ledger_of_a_run(client: httpx.AsyncClient, app: FastAPI) -> None:
    task_id = await _task(app)
    empty = (await client.get(f"/v1/tasks/{task_id}/ledger")).json()
    assert empty["snapshot"] is None and empty["steps"] == [] and empty["status"] == "queued"
    ledger = await _run(app, task_id)
    body = (await client.get(f"/v1/tasks/{task_id}/ledger")).json()
    assert body["snapshot"]["goal"] == "buy"
    assert body["snapshot"]["dead_ends"][0]["description"] == "Pay button covered"
    assert [(s["step"], s["data"]["memory"]) for s in body["steps"]] == [(1, "m1"), (2, "m2")]
    assert [s["data"]["step"] for s in body["steps"]] == [s.step for s in ledger.all_steps]
    (fact,) = body["facts"]
    assert (fact["key"], fact["value"], fact["category"], fact["source_step"]) == (
        "total",
        "12 EUR",
        "derived",
        2,
    )
    (dead,) = body["dead_ends"]
    assert (dead["url"], dead["cause"], dead["domain"]) == (URL, "postcondition_miss", "shop.test")
    assert [(n["kind"], n["step"]) for n in body["episodic"]] == [("summary", 2)]


async def test_other_tenants_ledger_is_404(client: httpx.AsyncClient, app: FastAPI) -> None:
    foreign = await _task(app, tenant_id="someone-else")
    await _run(app, foreign, tenant_id="someone-else")
    assert (await client.get(f"/v1/tasks/{foreign}/ledger")).status_code == 404
    assert (await client.get("/v1/tasks/nope/ledger")).status_code == 404


async def test_api_key_scopes_the_ledger(db_url: str) -> None:
    app = create_app(
        make_settings(db_url, api_keys_required=True), dispatcher=RecordingDispatcher()
    )
    async with running(app) as client:
        async with app.state.session_factory() as s:
            _, key_a = await repositories.create_api_key(s, tenant_id="acme", name="ci")
            _, key_b = await repositories.create_api_key(s, tenant_id="globex", name="ci")
            await s.commit()
        task_id = await _task(app, tenant_id="acme")
        await _run(app, task_id, tenant_id="acme")
        path = f"/v1/tasks/{task_id}/ledger"
        assert (await client.get(path)).status_code == 401
        mine = await client.get(path, headers={"Authorization": f"Bearer {key_a}"})
        assert mine.status_code == 200 and len(mine.json()["steps"]) == 2
        theirs = await client.get(path, headers={"Authorization": f"Bearer {key_b}"})
        assert theirs.status_code == 404
