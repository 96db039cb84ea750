"""Deleting task data and the retention pruner, on SQLite and Postgres; month partitions of
task_events on Postgres (app/db/repo_retention.py, app/retention.py, app/db/partitions.py)."""

from __future__ import annotations

import os
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app import metrics
from app.contracts import TaskStatus
from app.db import partitions
from app.db import repositories as repo
from app.db.models import (
    Approval,
    Artifact,
    EpisodicNote,
    Fact,
    Ledger,
    LedgerStep,
    Task,
    TaskAttachment,
    TaskEvent,
    WebhookDelivery,
)
from app.db.repo_retention import delete_tasks
from app.retention import RetentionPolicy, prune_once
from app.settings import Settings
from app.store import ArtifactStore, StoreConfig, open_store
from app.store.records import attachment_key, delete_task_blobs, keep_artifact, task_prefix
from tests.support.task_rows import add_task
from workers.process.housekeeping import sweep_scratch
from workers.process.scratch import scratch_root, task_dirs

Sessions = async_sessionmaker[AsyncSession]
NOW = datetime.now(UTC).replace(microsecond=0)
FIXED = datetime(2026, 11, 27, 12, 0, tzinfo=UTC)
SHOT = b"\xff\xd8" + b"x" * 998  # 1,000 bytes
FILE = b"a" * 500
OWNED = (
    TaskEvent,
    Artifact,
    TaskAttachment,
    Ledger,
    LedgerStep,
    EpisodicNote,
    Approval,
    WebhookDelivery,
)


@pytest.fixture
def store_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("artifacts")


@pytest.fixture
def store(store_root: Path) -> ArtifactStore:
    return open_store(StoreConfig(backend="local", local_dir=str(store_root)))


def _objects(root: Path, task_id: str) -> int:
    """How many files the task has in the local store's folder."""
    return sum(p.is_file() for p in (root / task_prefix(task_id)).rglob("*"))


async def _full_task(
    sessions: Sessions,
    store: ArtifactStore,
    tenant: str = "default",
    finished: datetime | None = NOW,
) -> str:
    """A task with a row in every table that belongs to it (its screenshot and attachment
    bytes in the store), a fact it taught, and (when `finished`) a terminal status then."""
    async with sessions() as s:
        task = await add_task(s, tenant_id=tenant, instruction="x", timeout_s=60.0)
        tid = task.id
        for seq in (1, 2):
            await repo.append_event(s, task_id=tid, seq=seq, type="step.started", data={}, ts=NOW)
        await keep_artifact(
            s,
            store,
            task_id=tid,
            tenant_id=tenant,
            kind="screenshot",
            step=1,
            content_type="image/jpeg",
            data=SHOT,
        )
        row = TaskAttachment(task_id=tid, name="a.txt", media_type="text/plain", size=500)
        s.add(row)
        await s.flush()
        row.storage_key = (await store.put(attachment_key(tid, row.id), FILE, "text/plain")).key
        await repo.save_ledger(s, task_id=tid, tenant_id=tenant, data={"goal": "x"})
        s.add(LedgerStep(task_id=tid, tenant_id=tenant, step=1, data={}))
        s.add(EpisodicNote(task_id=tid, tenant_id=tenant, text="note"))
        s.add(
            Approval(
                task_id=tid,
                tenant_id=tenant,
                kind="sensitive_action",
                reason="r",
                expires_at=NOW,
            )
        )
        s.add(WebhookDelivery(task_id=tid, tenant_id=tenant, url="https://h.example/"))
        await repo.add_fact(
            s,
            task_id=tid,
            tenant_id=tenant,
            domain="shop.example",
            category="site",
            text="the cart is top right",
            confidence=0.9,
        )
        if finished is not None:
            await s.execute(
                update(Task)
                .where(Task.id == tid)
                .values(status=TaskStatus.succeeded.value, finished_at=finished)
            )
        await s.commit()
    return tid


async def _count(s: AsyncSession, model: object, task_id: str) -> int:
    column = model.task_id  # type: ignore[attr-defined]
    return int((await s.execute(select(func.count()).where(column == task_id))).scalar_one())


async def test_delete_removes_every_row_of_the_task_and_keeps_learnings(
    sessions: Sessions, store: ArtifactStore, store_root: Path
) -> None:
    gone, kept = await _full_task(sessions, store), await _full_task(sessions, store)
    assert _objects(store_root, gone) == 2
    async with sessions() as s:
        deleted = await delete_tasks(s, [gone])
        await s.commit()
    assert await delete_task_blobs(store, gone) == 2
    assert _objects(store_root, gone) == 0 and _objects(store_root, kept) == 2
    assert deleted.size_bytes == len(SHOT) + len(FILE)
    assert deleted.rows["task_events"] == 2 and deleted.rows["tasks"] == 1
    assert deleted.total_rows == 10  # 2 events + 1 of each of the 7 other tables + the task
    async with sessions() as s:
        assert await s.get(Task, gone) is None
        for model in OWNED:
            assert await _count(s, model, gone) == 0, model
            assert await _count(s, model, kept) >= 1, model
        facts = (await s.execute(select(Fact.text, Fact.task_id))).all()
    # the fact the deleted task taught stays, without its reference
    assert sorted(facts, key=str) == sorted(
        [("the cart is top right", None), ("the cart is top right", kept)], key=str
    )


async def test_pruner_honours_the_default_and_per_tenant_retention(
    sessions: Sessions, store: ArtifactStore, store_root: Path
) -> None:
    old = NOW - timedelta(days=40)
    expired = await _full_task(sessions, store, "default", old)
    recent = await _full_task(sessions, store, "default", NOW - timedelta(days=5))
    kept_forever = await _full_task(sessions, store, "audit", old)  # override 0: never pruned
    short = await _full_task(sessions, store, "acme", NOW - timedelta(days=8))  # 7-day override
    live = await _full_task(sessions, store, "default", None)  # queued, old: never expires
    async with sessions() as s:
        await s.execute(update(Task).where(Task.id == live).values(created_at=old))
        await s.commit()
    before = metrics.sample_value("webagent_data_deleted_bytes_total", {"reason": "retention"})
    policy = RetentionPolicy(days=30, by_tenant={"audit": 0, "acme": 7})
    done = await prune_once(sessions, policy, now=NOW, store=store)
    assert done.rows["tasks"] == 2
    assert _objects(store_root, expired) == _objects(store_root, short) == 0  # bytes gone too
    assert _objects(store_root, recent) == _objects(store_root, kept_forever) == 2
    async with sessions() as s:
        left = set((await s.execute(select(Task.id))).scalars())
    assert left == {recent, kept_forever, live}
    assert expired not in left and short not in left
    after = metrics.sample_value("webagent_data_deleted_bytes_total", {"reason": "retention"})
    assert after - before == done.size_bytes >= 2 * (len(SHOT) + len(FILE))
    assert (await prune_once(sessions, policy, now=NOW)).total_rows == 0  # idempotent


def test_policy_drops_partitions_only_when_every_tenant_has_a_retention() -> None:
    assert RetentionPolicy().keeps_everything_after(NOW) is None
    assert RetentionPolicy(days=30, by_tenant={"audit": 0}).keeps_everything_after(NOW) is None
    assert RetentionPolicy(days=0, by_tenant={"a": 5}).keeps_everything_after(NOW) is None
    longest = RetentionPolicy(days=30, by_tenant={"a": 90}).keeps_everything_after(NOW)
    assert longest == NOW - timedelta(days=90)


def test_month_arithmetic() -> None:
    assert partitions.month_start(FIXED) == datetime(2026, 11, 1, tzinfo=UTC)
    assert partitions.month_start(FIXED, 2) == datetime(2027, 1, 1, tzinfo=UTC)
    assert partitions.month_start(FIXED, -11) == datetime(2025, 12, 1, tzinfo=UTC)
    part = partitions.partition_for(datetime(2027, 12, 31, 23, tzinfo=UTC))
    assert (part.name, part.end) == ("task_events_y2027m12", datetime(2028, 1, 1, tzinfo=UTC))


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
async def test_postgres_events_live_in_month_partitions_made_ahead(
    sessions: Sessions, store: ArtifactStore
) -> None:
    async with sessions() as s:
        assert await partitions.is_partitioned(s)
        made = await partitions.ensure_ahead(s, datetime.now(UTC))
        assert made == []  # the migration made this month and AHEAD more
        far = datetime.now(UTC) + timedelta(days=31 * (partitions.AHEAD + 2))
        made = await partitions.ensure_ahead(s, far, ahead=0)
        await s.commit()
        assert made == [partitions.partition_for(far).name]
        names = [p.name for p in await partitions.monthly(s)]
        assert partitions.partition_for(datetime.now(UTC)).name in names
        # every partition keeps (task_id, seq) unique: two writers of one seq collide
        indexes = await s.execute(
            text("SELECT tablename FROM pg_indexes WHERE indexname LIKE 'uq_task_events_%'")
        )
        assert set(names) | {partitions.DEFAULT} <= set(indexes.scalars())
    tid = await _full_task(sessions, store)
    async with sessions() as s:
        with pytest.raises(IntegrityError):
            await repo.append_event(s, task_id=tid, seq=2, type="x", data={})
        await s.rollback()
        where = await s.execute(
            text("SELECT DISTINCT tableoid::regclass::text FROM task_events WHERE task_id = :t"),
            {"t": tid},
        )
        assert list(where.scalars()) == [partitions.partition_for(NOW).name]


@pytest.mark.parametrize("backend", ["postgres"], indirect=True)
async def test_postgres_pruner_drops_whole_old_partitions(
    sessions: Sessions, store: ArtifactStore
) -> None:
    ancient = datetime(2025, 3, 10, tzinfo=UTC)
    async with sessions() as s:
        for sql in partitions.create_sql(partitions.partition_for(ancient)):
            await s.execute(text(sql))
        await s.commit()
    old = await _full_task(sessions, store, finished=ancient + timedelta(hours=1))
    async with sessions() as s:  # its events written in March 2025
        await s.execute(update(TaskEvent).where(TaskEvent.task_id == old).values(ts=ancient))
        await s.commit()
    recent = await _full_task(sessions, store, finished=NOW)
    done = await prune_once(sessions, RetentionPolicy(days=200), now=NOW)
    assert done.rows["task_events"] == 2  # the March 2025 partition, whole
    assert done.rows["tasks"] == 1
    async with sessions() as s:
        names = [p.name for p in await partitions.monthly(s)]
        assert partitions.partition_for(ancient).name not in names
        assert partitions.partition_for(NOW).name in names
        assert await _count(s, TaskEvent, recent) == 2
        assert await s.get(Task, old) is None


async def test_sweep_removes_the_folders_of_tasks_that_are_not_live(
    sessions: Sessions, store: ArtifactStore, tmp_path: Path
) -> None:
    finished = await _full_task(sessions, store)
    live = await _full_task(sessions, store, finished=None)
    async with sessions() as s:
        await repo.mark_running(s, task_id=live, worker_id="w1")
        await s.commit()
    deleted = "d" * 32  # a task deleted while its worker was down, a day ago
    foreign = "f" * 32  # a running task of another deployment sharing the root (issue 31)
    for task_id in (finished, live, deleted, foreign):
        (tmp_path / task_id / "attachments").mkdir(parents=True)
        (tmp_path / task_id / "attachments" / "cv.pdf").write_bytes(b"%PDF")
    day_ago = time.time() - 86400
    for path in (tmp_path / deleted, *(tmp_path / deleted).rglob("*")):
        os.utime(path, (day_ago, day_ago))
    (tmp_path / "not-a-task").mkdir()  # never ours to remove
    removed = await sweep_scratch(sessions, tmp_path, idle_s=3600)
    assert sorted(removed) == sorted([finished, deleted])
    assert task_dirs(tmp_path) == sorted([live, foreign])
    assert (tmp_path / "not-a-task").is_dir()
    assert await sweep_scratch(sessions, tmp_path / "absent") == []


def test_scratch_root_is_per_database_unless_configured(tmp_path: Path) -> None:
    one = scratch_root("", "postgresql+asyncpg://h/one")
    assert one != scratch_root("", "postgresql+asyncpg://h/two")  # deployments never mix
    assert one.parent == Path(tempfile.gettempdir())
    assert scratch_root(str(tmp_path), "sqlite://") == tmp_path


def test_the_default_sqlite_path_in_two_folders_names_two_roots(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 31 item 1: two services started in two folders with the default data dir
    have two databases; they shared one scratch root and swept each other's live tasks."""
    url = Settings().model_copy(update={"data_dir": ".webagent"}).effective_database_url
    roots = []
    for folder in ("group-1", "group-2"):
        (tmp_path / folder).mkdir()
        monkeypatch.chdir(tmp_path / folder)
        roots.append(scratch_root("", url))
    assert roots[0] != roots[1]
    monkeypatch.chdir(tmp_path / "group-1")
    assert scratch_root("", url) == roots[0]  # stable for one deployment
