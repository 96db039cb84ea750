"""Artifact bytes stay out of the database (issue 25): a 50-step run's records, written the
way a worker writes them (DbEventSink: step events and a JPEG screenshot a step, a download,
an approval screenshot, a trace; attachments through the API's path), leave no image bytes
in any table; rows written before migration 0016 keep theirs until `webagent artifacts
migrate` moves them, which is resumable and idempotent. Both databases, local store."""

from __future__ import annotations

import io
import json
from pathlib import Path

from PIL import Image
from sqlalchemy import inspect, select, text
from sqlalchemy.ext.asyncio import AsyncSession, async_sessionmaker

from app.db.models import Artifact, TaskAttachment, new_id
from app.db.repo_attachments import Attachment
from app.db.types import utcnow
from app.events import MemoryEventBus
from app.store import StoreConfig, open_store
from app.store.migrate import migrate_blobs
from app.store.records import add_attachments, load_attachments, read_artifact
from tests.support.task_rows import add_task
from workers.adapters.sink import DbEventSink

Sessions = async_sessionmaker[AsyncSession]
MAGIC = (b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff")  # PNG, JPEG
B64_MAGIC = ("iVBORw0KGgo", "/9j/")


def image(fmt: str, shade: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (64, 48), (shade, 80, 160)).save(out, format=fmt)
    return out.getvalue()


async def dump(sessions: Sessions) -> bytes:
    """Every value of every row of every table, as bytes (what a pg_dump would hold)."""
    parts: list[bytes] = []
    async with sessions() as s:
        tables = await s.run_sync(lambda ss: inspect(ss.connection()).get_table_names())
        for table in tables:
            for row in (await s.execute(text(f'SELECT * FROM "{table}"'))).all():
                for value in row:
                    if isinstance(value, bytes | bytearray | memoryview):
                        parts.append(bytes(value))
                    elif value is not None:
                        parts.append(json.dumps(value, default=str).encode())
    return b"\n".join(parts)


def image_bytes_in(blob: bytes) -> list[str]:
    found = [repr(m) for m in MAGIC if m in blob]
    return found + [m for m in B64_MAGIC if m.encode() in blob]


async def test_a_50_step_run_leaves_no_image_bytes_in_the_database(
    sessions: Sessions, tmp_path: Path
) -> None:
    store = open_store(StoreConfig(local_dir=str(tmp_path)))
    async with sessions() as s:
        task = await add_task(s, instruction="browse fifty pages")
        await add_attachments(
            s, store, task.id, [Attachment("logo.png", "image/png", image("PNG", 1))]
        )
        await s.commit()
    sink = DbEventSink(sessions, MemoryEventBus(), task.id, task.tenant_id, store=store)
    shots = {}
    for step in range(1, 51):
        await sink.emit("step.started", {"step": step})
        shots[step] = image("JPEG", step)
        await sink.save_screenshot(step, shots[step])
        await sink.emit("step.finished", {"step": step, "screenshot": True})
    await sink.save_file("chart.png", "image/png", image("PNG", 2))
    await sink.save_trace(b"PK\x03\x04 a trace")
    await sink.flush()

    assert image_bytes_in(await dump(sessions)) == []
    async with sessions() as s:
        rows = list(await s.scalars(select(Artifact).where(Artifact.task_id == task.id)))
        assert len(rows) == 52 and all(r.storage_key and r.sha256 for r in rows)
        step_7 = next(r for r in rows if r.kind == "screenshot" and r.step == 7)
        assert await read_artifact(s, store, step_7) == shots[7] and step_7.size == len(shots[7])
        (loaded,) = await load_attachments(s, store, task.id)
    assert loaded.data == image("PNG", 1)


async def _legacy_rows(sessions: Sessions, count: int) -> tuple[str, dict[str, bytes]]:
    """Rows as migration 0015 left them: the bytes in `data`, no storage key."""
    originals: dict[str, bytes] = {}
    async with sessions() as s:
        task = await add_task(s, instruction="an old run")
        for step in range(1, count + 1):
            originals[f"shot-{step}"] = image("JPEG", 100 + step)
            s.add(
                Artifact(
                    id=new_id(), task_id=task.id, tenant_id=task.tenant_id, kind="screenshot",
                    step=step, content_type="image/jpeg", data=originals[f"shot-{step}"],
                    size=len(originals[f"shot-{step}"]), created_at=utcnow(),
                )
            )  # fmt: skip
        originals["file"] = image("PNG", 3)
        s.add(
            TaskAttachment(
                task_id=task.id, name="old.png", media_type="image/png",
                size=len(originals["file"]), data=originals["file"],
            )
        )  # fmt: skip
        await s.commit()
        return task.id, originals


async def test_artifacts_migrate_moves_old_blobs_out_resumably_and_once(
    sessions: Sessions, tmp_path: Path
) -> None:
    store = open_store(StoreConfig(local_dir=str(tmp_path)))
    task_id, originals = await _legacy_rows(sessions, 5)
    assert image_bytes_in(await dump(sessions))  # the guard: the dump does see legacy bytes
    async with sessions() as s:  # served from the old column until moved
        row = await s.scalar(
            select(Artifact).where(Artifact.task_id == task_id, Artifact.step == 2)
        )
        assert row is not None and await read_artifact(s, store, row) == originals["shot-2"]

    first = await migrate_blobs(sessions, store, batch=2, limit=3)  # stopped part-way
    assert (first.artifacts, first.attachments) == (3, 1)
    assert image_bytes_in(await dump(sessions))  # two screenshots still inside
    rest = await migrate_blobs(sessions, store, batch=2)
    assert (rest.artifacts, rest.attachments) == (2, 0)
    assert image_bytes_in(await dump(sessions)) == []
    again = await migrate_blobs(sessions, store)
    assert (again.artifacts, again.attachments, again.bytes) == (0, 0, 0)

    async with sessions() as s:
        rows = list(await s.scalars(select(Artifact).where(Artifact.task_id == task_id)))
        for r in rows:
            assert await read_artifact(s, store, r) == originals[f"shot-{r.step}"]
            assert r.size == len(originals[f"shot-{r.step}"]) and len(r.sha256 or "") == 64
        (file,) = await load_attachments(s, store, task_id)
    assert file.data == originals["file"]
