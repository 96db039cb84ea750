"""Events, artifacts, ledgers, memory and API keys on SQLite and Postgres."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy import delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.contracts import DEFAULT_TENANT, EventType
from app.db import repositories as repo
from app.db.models import Base, Fact, Task
from tests.support.task_rows import add_task

Sessions = async_sessionmaker[AsyncSession]


async def _task(s: AsyncSession, tenant_id: str = DEFAULT_TENANT) -> Task:
    return await add_task(s, tenant_id=tenant_id, instruction="x", timeout_s=10.0)


async def test_events_sequence_and_replay(s: AsyncSession) -> None:
    task = await _task(s)
    assert await repo.next_event_seq(s, task_id=task.id) == 1
    for _ in range(5):
        seq = await repo.next_event_seq(s, task_id=task.id)
        await repo.append_event(
            s, task_id=task.id, seq=seq, type=EventType.step_started, data={"n": seq}
        )
    await s.commit()
    assert await repo.next_event_seq(s, task_id=task.id) == 6
    after = await repo.list_events(s, task_id=task.id, after_seq=2)
    assert [e.seq for e in after] == [3, 4, 5]
    assert [e.seq for e in await repo.list_events(s, task_id=task.id, limit=2)] == [1, 2]
    wire = repo.event_to_contract(after[0])
    assert (wire.type, wire.data, wire.task_id) == ("step.started", {"n": 3}, task.id)
    assert wire.ts.tzinfo is not None


async def test_duplicate_event_seq_raises(s: AsyncSession) -> None:
    task_id = (await _task(s)).id  # rollback expires loaded rows
    await repo.append_event(s, task_id=task_id, seq=1, type="observation", data={})
    await s.commit()
    with pytest.raises(IntegrityError):
        await repo.append_event(s, task_id=task_id, seq=1, type="observation", data={})
    await s.rollback()
    assert len(await repo.list_events(s, task_id=task_id)) == 1


async def test_event_for_missing_task_violates_foreign_key(s: AsyncSession) -> None:
    with pytest.raises(IntegrityError):
        await repo.append_event(s, task_id="f" * 32, seq=1, type="observation", data={})
    await s.rollback()


async def test_datetimes_are_aware_utc(sessions: Sessions) -> None:
    """SQLite keeps no offset; values must still come back aware and in UTC."""
    plus_two = datetime(2031, 5, 6, 9, 30, 15, 123456, tzinfo=timezone(timedelta(hours=2)))
    async with sessions() as s:
        task = await _task(s)
        await repo.append_event(s, task_id=task.id, seq=1, type="llm.call", data={}, ts=plus_two)
        await s.commit()
    async with sessions() as s:  # a fresh session: values come from the database
        (event,) = await repo.list_events(s, task_id=task.id)
        got = await repo.get_task(s, task_id=task.id)
    assert event.ts.utcoffset() == timedelta(0)
    assert event.ts == plus_two and event.ts.hour == 7 and event.ts.microsecond == 123456
    assert got is not None and got.created_at.utcoffset() == timedelta(0)


async def test_artifacts_upsert_and_listing(s: AsyncSession) -> None:
    """Rows keep metadata only (the bytes are in the artifact store under storage_key)."""
    task = await _task(s)
    kw = {"task_id": task.id, "tenant_id": task.tenant_id, "kind": "screenshot"}
    meta = {"size": 3, "sha256": "a" * 64}
    first = await repo.save_artifact(
        s, **kw, step=1, content_type="image/png", storage_key="k/1", **meta
    )
    again = await repo.save_artifact(
        s, **kw, step=1, content_type="image/jpeg", storage_key="k/1b", **meta
    )
    await repo.save_artifact(s, **kw, step=2, content_type="image/png", storage_key="k/2", **meta)
    await s.commit()
    assert first == again
    art = await repo.get_artifact(s, task_id=task.id, kind="screenshot", step=1)
    assert art is not None and (art.content_type, art.storage_key) == ("image/jpeg", "k/1b")
    assert await repo.legacy_artifact_data(s, art.id) is None
    assert await repo.get_artifact(s, task_id=task.id, kind="screenshot", step=9) is None
    s.expunge_all()
    listed = await repo.list_artifacts(s, task_id=task.id, kind="screenshot")
    assert [(a.step, a.size) for a in listed] == [(1, 3), (2, 3)]


async def test_ledger_replace(s: AsyncSession) -> None:
    task = await _task(s)
    assert await repo.get_ledger(s, task_id=task.id) is None
    await repo.save_ledger(s, task_id=task.id, tenant_id=task.tenant_id, data={"goal": "a"})
    await repo.save_ledger(s, task_id=task.id, tenant_id=task.tenant_id, data={"goal": "b"})
    await s.commit()
    ledger = await repo.get_ledger(s, task_id=task.id)
    assert ledger is not None and ledger.data == {"goal": "b"}


async def test_deleting_a_task_cascades_and_keeps_memory(s: AsyncSession) -> None:
    task = await _task(s)
    await repo.append_event(s, task_id=task.id, seq=1, type="observation", data={})
    await repo.save_ledger(s, task_id=task.id, tenant_id=task.tenant_id, data={})
    await repo.add_fact(
        s, task_id=task.id, tenant_id=task.tenant_id, domain="a.com",
        category="price", text="9.99", confidence=0.9, source_step=1,
    )  # fmt: skip
    await s.commit()
    await s.execute(delete(Task).where(Task.id == task.id))
    await s.commit()
    assert await repo.list_events(s, task_id=task.id) == []
    assert await repo.get_ledger(s, task_id=task.id) is None
    fact = (await s.execute(select(Fact).execution_options(populate_existing=True))).scalar_one()
    assert fact.task_id is None and fact.text == "9.99"


async def test_facts_and_dead_ends_filters(s: AsyncSession) -> None:
    t1, t2 = await _task(s), await _task(s)
    await repo.add_fact(
        s, task_id=t1.id, tenant_id=DEFAULT_TENANT, domain="Shop.COM",
        category="price", text="p1", confidence=0.5,
    )  # fmt: skip
    await repo.add_fact(
        s, task_id=t2.id, tenant_id=DEFAULT_TENANT, domain="other.com",
        category="name", text="n2", confidence=1.0, source_step=3,
    )  # fmt: skip
    await repo.add_fact(
        s, task_id=None, tenant_id="t2", domain="shop.com",
        category="price", text="hidden", confidence=1.0,
    )  # fmt: skip
    await repo.add_dead_end(
        s, task_id=t1.id, tenant_id=DEFAULT_TENANT, domain="shop.com",
        url="https://shop.com/404", cause="not_found",
    )  # fmt: skip
    await s.commit()
    by_domain = await repo.list_facts(s, tenant_id=DEFAULT_TENANT, domain="shop.com")
    assert [f.text for f in by_domain] == ["p1"]
    by_task = await repo.list_facts(s, tenant_id=DEFAULT_TENANT, task_id=t2.id)
    assert [(f.text, f.source_step) for f in by_task] == [("n2", 3)]
    assert len(await repo.list_facts(s, tenant_id=DEFAULT_TENANT)) == 2
    dead = await repo.list_dead_ends(s, tenant_id=DEFAULT_TENANT, domain="SHOP.com")
    assert [(d.url, d.cause) for d in dead] == [("https://shop.com/404", "not_found")]
    assert await repo.list_dead_ends(s, tenant_id="t2") == []


async def test_domain_learnings_upsert_counts_hits(s: AsyncSession) -> None:
    kw = {"tenant_id": DEFAULT_TENANT, "domain": "Shop.com"}
    await repo.put_domain_learning(s, **kw, key="search_box", value={"sel": "#q"})
    await repo.put_domain_learning(s, **kw, key="search_box", value={"sel": "#search"})
    await repo.put_domain_learning(s, **kw, key="needs_login", value=True)
    await repo.put_domain_learning(s, tenant_id="t2", domain="shop.com", key="x", value=1)
    await s.commit()
    learned = await repo.get_domain_learnings(s, tenant_id=DEFAULT_TENANT, domain="shop.com")
    assert learned == {"search_box": {"sel": "#search"}, "needs_login": True}
    rows = await repo.list_domain_learnings(s, tenant_id=DEFAULT_TENANT, domain="shop.com")
    assert [(r.key, r.hits) for r in rows] == [("search_box", 2), ("needs_login", 1)]


async def test_api_keys_hash_only_and_revocation(s: AsyncSession) -> None:
    key, plaintext = await repo.create_api_key(s, tenant_id="acme", name="ci")
    await s.commit()
    assert key.key_hash != plaintext and len(key.key_hash) == 64
    assert key.prefix == plaintext[:11] and plaintext.startswith("wa_")
    # every column of every row of every table, as text: no substring of the secret part
    values: list[str] = []
    for table in Base.metadata.sorted_tables:
        for row in (await s.execute(select(table))).all():
            values.extend(repr(value) for value in row)
    dump = "\n".join(values)
    assert key.prefix in dump and plaintext[11:] not in dump and plaintext not in dump
    found = await repo.find_api_key(s, plaintext=plaintext)
    assert found is not None and found.tenant_id == "acme"
    assert await repo.find_api_key(s, plaintext=plaintext + "x") is None
    assert [k.id for k in await repo.list_api_keys(s, tenant_id="acme")] == [key.id]
    assert not await repo.revoke_api_key(s, key_id=key.id, tenant_id="other")
    assert await repo.revoke_api_key(s, key_id=key.id, tenant_id="acme")
    assert not await repo.revoke_api_key(s, key_id=key.id, tenant_id="acme")
    await s.commit()
    assert await repo.find_api_key(s, plaintext=plaintext) is None
    assert datetime.now(UTC) >= key.created_at


async def test_concurrent_writers_do_not_lock_out(sessions: Sessions) -> None:
    """The sink pattern (read max seq, insert, commit) from many tasks at once; SQLite too."""
    async with sessions() as s:
        task_ids = [(await _task(s)).id for _ in range(6)]

    async def writer(task_id: str) -> None:
        for _ in range(8):
            async with sessions() as s:
                seq = await repo.next_event_seq(s, task_id=task_id)
                await repo.append_event(s, task_id=task_id, seq=seq, type="observation", data={})
                await repo.heartbeat(s, task_id=task_id, worker_id="nobody")
                await s.commit()

    await asyncio.gather(*(writer(t) for t in task_ids))
    async with sessions() as s:
        for task_id in task_ids:
            events = await repo.list_events(s, task_id=task_id)
            assert [e.seq for e in events] == list(range(1, 9))
