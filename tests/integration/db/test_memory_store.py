"""DbMemoryStore on SQLite and Postgres: snapshot rewritten, rows append-only, dead ends and
learnings carried to the next task on the domain, the trajectory rebuilt from the rows."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import asdict, replace

from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.contracts import DEFAULT_TENANT
from app.db import repositories as repo
from tests.support.task_rows import add_task
from workers.adapters.memory_store import DbMemoryStore
from workers.agent.memory.ledger import Ledger, StepOutcome, step_from_dict
from workers.agent.protocols import MemoryStore

Sessions = async_sessionmaker[AsyncSession]
SHOP = "https://Shop.test/list"


async def _store(sessions: Sessions, tenant_id: str = DEFAULT_TENANT) -> DbMemoryStore:
    async with sessions() as s:
        task = await add_task(
            s, tenant_id=tenant_id, instruction="buy a kettle", start_url=SHOP, max_steps=20
        )
    return DbMemoryStore(sessions, task_id=task.id, tenant_id=tenant_id)


async def _persist(store: DbMemoryStore, ledger: Ledger) -> None:
    """What the loop does after each update: drain the journal into the store."""
    for change in ledger.drain():
        if change.kind == "step":
            await store.append_step(change.entry)
        elif change.kind == "fact":
            await store.append_fact(change.entry, "shop.test")
        elif change.kind == "dead_end":
            await store.record_dead_end(change.entry.domain, change.entry)
        elif change.kind == "episodic":
            await store.append_episodic(change.entry)
    await store.save_ledger(ledger.to_dict())
    await store.flush()  # the writes run behind the caller


async def test_is_a_memory_store(sessions: Sessions) -> None:
    assert isinstance(await _store(sessions), MemoryStore)


async def test_a_run_is_rebuilt_from_its_rows(sessions: Sessions) -> None:
    store = await _store(sessions)
    ledger = Ledger(goal="buy a kettle")
    for n in range(1, 6):
        ok = n != 3
        ledger.record_step(
            StepOutcome(n, SHOP, (f"click(ref={n}:1) -> {'ok' if ok else 'failed'}",), ok)
        )
        if not ok:
            ledger.mark_dead_end("Buy did nothing", SHOP, "postcondition_miss", step=n)
        ledger.record_fact("price", f"{10 + n} EUR", category="observation", step=n)
        await _persist(store, ledger)
    ledger.note("archived 4 messages at iter 5; ledger remains authoritative", 5, "archive")
    await _persist(store, ledger)

    async with sessions() as s:
        snapshot = await repo.get_ledger(s, task_id=store.task_id)
        steps = await repo.list_ledger_steps(s, task_id=store.task_id)
        facts = await repo.list_facts(s, tenant_id=DEFAULT_TENANT, task_id=store.task_id)
        notes = await repo.list_episodic_notes(s, task_id=store.task_id)
    assert snapshot is not None  # one row, rewritten on each update
    assert snapshot.data == json.loads(json.dumps(ledger.to_dict()))
    assert [step_from_dict(r.data) for r in steps] == ledger.all_steps  # append-only
    assert [(f.key, f.text) for f in facts] == [("price", f"{10 + n} EUR") for n in range(1, 6)]
    assert [(n.kind, n.step) for n in notes] == [("archive", 5)]
    assert Ledger.from_dict(snapshot.data).to_dict() == ledger.to_dict()


async def test_dead_ends_reach_the_next_task_on_the_domain_only(sessions: Sessions) -> None:
    first = await _store(sessions)
    ledger = Ledger(goal="g")
    dead = ledger.mark_dead_end(
        "price filter 404", SHOP, "network", step=2, signature="click:[('ref', 'filter')]"
    )
    assert dead is not None
    await _persist(first, ledger)
    await first.record_learning("Shop.test", "route", {"kind": "browser", "confidence": 0.9})
    await first.flush()  # the first task's job settles its writes before it ends

    second = await _store(sessions)
    loaded = await second.load_domain_dead_ends("shop.test")
    # description, url, cause and signature survive; the site row counts, not steps
    assert loaded == [replace(dead, step=0, earlier=True)]
    assert await second.load_domain_dead_ends("other.test") == []
    assert await second.load_domain_learnings("SHOP.test") == {
        "route": {"kind": "browser", "confidence": 0.9}
    }
    fresh = Ledger(goal="g2")
    assert fresh.load_dead_ends(loaded) == 1
    assert fresh.is_dead_end(SHOP, "click:[('ref', 'filter')]")

    foreign = await _store(sessions, tenant_id="globex")
    assert await foreign.load_domain_dead_ends("shop.test") == []
    assert await foreign.load_domain_learnings("shop.test") == {}


async def test_learning_upsert_and_steps_keep_their_json(sessions: Sessions) -> None:
    store = await _store(sessions)
    await store.record_learning("shop.test", "delegated:abc", {"substantive": False})
    await store.record_learning("shop.test", "delegated:abc", {"substantive": True})
    assert (await store.load_domain_learnings("shop.test"))["delegated:abc"] == {
        "substantive": True
    }
    outcome = StepOutcome(1, SHOP, ("type(ref=1:2,text=ü) -> ok",), evaluation="typed ü")
    await store.append_step(outcome)
    await store.flush()
    async with sessions() as s:
        (row,) = await repo.list_ledger_steps(s, task_id=store.task_id)
    assert row.data == asdict(outcome) | {"actions": ["type(ref=1:2,text=ü) -> ok"]}


async def test_writes_run_behind_the_caller_in_order(sessions: Sessions) -> None:
    """The loop does not wait for its Ledger rows (issue 13, per-step overhead); flush()
    does, and they land in the order they were written. The store's sessions open only once
    the gate is set, so the appends can only return first if they do not wait for the rows."""
    gate = asyncio.Event()

    @asynccontextmanager
    async def gated() -> AsyncIterator[AsyncSession]:
        await gate.wait()
        async with sessions() as s:
            yield s

    task_id = (await _store(sessions)).task_id
    store = DbMemoryStore(gated, task_id=task_id, tenant_id=DEFAULT_TENANT)  # type: ignore[arg-type]
    async with asyncio.timeout(10):  # would hang here if an append waited for its row
        for n in range(1, 6):
            await store.append_step(StepOutcome(n, SHOP, (f"click(ref={n}:1) -> ok",), True))
    async with sessions() as s:
        assert await repo.list_ledger_steps(s, task_id=task_id) == []
    gate.set()
    await store.flush()
    async with sessions() as s:
        rows = await repo.list_ledger_steps(s, task_id=task_id)
    assert [r.step for r in rows] == [1, 2, 3, 4, 5]


async def test_site_dead_ends_count_repeats_and_expire_by_cause(sessions: Sessions) -> None:
    """Issue 21: one row per (page, action) with a count, first/last seen and the runs; a
    transient `network` dead end stops blocking after its expiry, a `policy_block` lasts."""
    from datetime import UTC, datetime, timedelta

    from workers.agent.memory.ledger import DeadEnd

    start = datetime(2026, 11, 1, 12, tzinfo=UTC)
    down = DeadEnd("navigate failed: 502", SHOP, "network", signature="navigate(url=/x)")
    refused = DeadEnd(
        'click button "Pay" failed: refused',
        SHOP,
        "policy_block",
        signature='click button "pay"',
        target='button "Pay"',
    )
    first, second = await _store(sessions), await _store(sessions)
    for store in (first, second):
        store.now = lambda: start
        await store.record_dead_end("shop.test", down)
        await store.record_dead_end("shop.test", refused)
        await store.flush()
    async with sessions() as s:
        rows = await repo.list_site_dead_ends(s, tenant_id=DEFAULT_TENANT, domain="shop.test")
    assert sorted((r.cause, r.count) for r in rows) == [("network", 2), ("policy_block", 2)]
    row = next(r for r in rows if r.cause == "network")
    assert (row.first_task_id, row.last_task_id) == (first.task_id, second.task_id)
    assert row.expires_at is not None and row.last_seen is not None
    assert next(r for r in rows if r.cause == "policy_block").expires_at is None

    later = await _store(sessions)
    later.now = lambda: start + timedelta(hours=1)
    loaded = await later.load_domain_dead_ends("shop.test")
    assert sorted((d.cause, d.count, d.earlier) for d in loaded) == [
        ("network", 2, True),
        ("policy_block", 2, True),
    ]
    assert next(d for d in loaded if d.cause == "policy_block").target == 'button "Pay"'
    later.now = lambda: start + timedelta(days=30)
    assert [d.cause for d in await later.load_domain_dead_ends("shop.test")] == ["policy_block"]


async def test_learnings_keep_the_runs_that_wrote_them_and_a_site_can_be_forgotten(
    sessions: Sessions,
) -> None:
    first, second = await _store(sessions), await _store(sessions)
    await first.record_learning("shop.test", "url_templates", [{"pattern": "/p/{}"}])
    await first.flush()
    await second.record_learning("shop.test", "url_templates", [{"pattern": "/p/{}"}])
    await second.record_dead_end("shop.test", Ledger("g").mark_dead_end("d", SHOP) or None)  # type: ignore[arg-type]
    await second.flush()
    async with sessions() as s:
        (row,) = await repo.list_domain_learnings(s, tenant_id=DEFAULT_TENANT, domain="shop.test")
        assert row.task_ids == [second.task_id, first.task_id] and row.hits == 2
        domains = await repo.list_domains(s, tenant_id=DEFAULT_TENANT)
        assert [(d["domain"], d["learnings"], d["dead_ends"]) for d in domains] == [
            ("shop.test", 1, 1)
        ]
        assert await repo.list_domains(s, tenant_id="other") == []
        assert await repo.forget_domain(s, tenant_id="other", domain="shop.test") == 0
        # the learning and the site dead end deleted, the run's own dead end row detached
        assert await repo.forget_domain(s, tenant_id=DEFAULT_TENANT, domain="Shop.test") == 3
        await s.commit()
        assert await repo.list_domains(s, tenant_id=DEFAULT_TENANT) == []


async def test_forgetting_a_site_forgets_its_exploration_and_facts(sessions: Sessions) -> None:
    """Issue 32 item 5: after DELETE .../learnings no later run reads the site's WebsiteMem
    (an exploration's bookmarks) or its facts; the run that recorded a fact keeps it."""
    async with sessions() as s:
        task = await add_task(s)
        found = await repo.create_exploration(
            s, tenant_id=DEFAULT_TENANT, domain="shop.test", url="http://shop.test/", params={}
        )
        await repo.save_website_mem(
            s, tenant_id=DEFAULT_TENANT, domain="shop.test", exploration_id=found.id,
            start_url="http://shop.test/", data={"pages": [{"url": "http://shop.test/a"}]},
        )  # fmt: skip
        await repo.add_fact(
            s, task_id=task.id, tenant_id=DEFAULT_TENANT, domain="shop.test",
            category="observation", text="kettles are on /c/kettles", confidence=0.9,
        )  # fmt: skip
        await s.commit()
        assert await repo.forget_domain(s, tenant_id=DEFAULT_TENANT, domain="shop.test") == 3
        await s.commit()
        assert (
            await repo.latest_website_mem(s, tenant_id=DEFAULT_TENANT, domain="shop.test") is None
        )
        assert (
            await repo.latest_exploration(s, tenant_id=DEFAULT_TENANT, domain="shop.test") is None
        )
        assert await repo.list_facts(s, tenant_id=DEFAULT_TENANT, domain="shop.test") == []
        kept = await repo.list_facts(s, tenant_id=DEFAULT_TENANT, task_id=task.id)
        assert [f.text for f in kept] == ["kettles are on /c/kettles"]


async def test_a_led_nowhere_dead_end_is_tried_again_once_when_its_page_changed(
    sessions: Sessions,
) -> None:
    """Issue 34: "Request a quote led nowhere" on a broken page must not block the repaired
    page forever. The page's fingerprint is stored with the site's dead end (migration 0019):
    a later run on a page that shows something else tries the action again; if it leads
    nowhere there too, the dead end holds on that page (tried once). After its expiry it is
    tried again as well."""
    from datetime import UTC, datetime, timedelta

    from workers.agent.memory.ledger import LED_NOWHERE, DeadEnd, page_fingerprint

    broken = '[3:1] button "Request a quote"\nThe quote service is down'
    repaired = '[5:1] button "Request a quote"\nQuotes within a day'
    start = datetime(2026, 11, 1, 12, tzinfo=UTC)
    quote = DeadEnd(
        'click button "Request a quote" had no effect',
        SHOP,
        LED_NOWHERE,
        signature='click button "request a quote"',
        target='button "Request a quote"',
        state=page_fingerprint(broken),
    )

    async def shown(text: str, hours: float) -> bool:
        later = await _store(sessions)
        later.now = lambda: start + timedelta(hours=hours)
        ledger = Ledger("get a quote")
        ledger.load_dead_ends(await later.load_domain_dead_ends("shop.test"))
        return bool(ledger.relevant_dead_ends(SHOP, text))

    async def record(dead_end: DeadEnd, hours: float) -> None:
        store = await _store(sessions)
        store.now = lambda: start + timedelta(hours=hours)
        await store.record_dead_end("shop.test", dead_end)
        await store.flush()

    await record(quote, 0)
    assert await shown(broken, 1)  # the same page: still a dead end
    assert not await shown(repaired, 1)  # the page changed: tried again
    await record(replace(quote, state=page_fingerprint(repaired)), 2)  # it failed there too
    assert await shown(repaired, 3)  # tried once: it holds on the new page
    assert not await shown(repaired, 2 + 24 * 15)  # expired: tried again
