"""One suite both artifact store backends pass (app/store): the local folder and S3 (a real
S3-compatible server, moto, started by the tests)."""

from __future__ import annotations

import hashlib

import httpx
import pytest

from app.store import ArtifactStore, BlobMissing, open_store
from app.store.records import delete_task_blobs
from tests.support.s3_server import S3Server

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4


async def test_put_then_get_returns_the_bytes_and_their_digest(store: ArtifactStore) -> None:
    blob = await store.put("tasks/t1/screenshot/1", PNG, "image/png")
    assert blob.key == "tasks/t1/screenshot/1"
    assert blob.size == len(PNG) and blob.sha256 == hashlib.sha256(PNG).hexdigest()
    assert await store.get("tasks/t1/screenshot/1") == PNG
    assert await store.exists("tasks/t1/screenshot/1")


async def test_a_second_put_replaces_the_object(store: ArtifactStore) -> None:
    await store.put("tasks/t1/screenshot/1", b"first", "image/jpeg")
    await store.put("tasks/t1/screenshot/1", b"second", "image/jpeg")
    assert await store.get("tasks/t1/screenshot/1") == b"second"


async def test_stream_yields_the_whole_object_in_chunks(store: ArtifactStore) -> None:
    big = bytes(i % 251 for i in range(700_000))  # over two stream chunks
    await store.put("tasks/t2/download/1", big, "application/octet-stream")
    chunks = [c async for c in await store.stream("tasks/t2/download/1")]
    assert b"".join(chunks) == big and len(chunks) >= 2


async def test_a_missing_key_is_blob_missing(store: ArtifactStore) -> None:
    with pytest.raises(BlobMissing):
        await store.get("tasks/none/screenshot/1")
    with pytest.raises(BlobMissing):
        await store.stream("tasks/none/screenshot/1")
    assert not await store.exists("tasks/none/screenshot/1")


async def test_delete_removes_one_object_and_tolerates_a_missing_one(
    store: ArtifactStore,
) -> None:
    await store.put("tasks/t3/screenshot/1", b"a", "image/jpeg")
    await store.put("tasks/t3/screenshot/2", b"b", "image/jpeg")
    await store.delete("tasks/t3/screenshot/1")
    await store.delete("tasks/t3/screenshot/1")  # again: no error
    assert not await store.exists("tasks/t3/screenshot/1")
    assert await store.get("tasks/t3/screenshot/2") == b"b"


async def test_delete_by_task_removes_that_task_only(store: ArtifactStore) -> None:
    for key in ("screenshot/1", "screenshot/2", "trace/1", "attachments/abc"):
        await store.put(f"tasks/gone/{key}", b"x", "application/octet-stream")
    await store.put("tasks/gone-not/screenshot/1", b"kept", "image/jpeg")  # a shared prefix
    assert await delete_task_blobs(store, "gone") == 4
    assert not await store.exists("tasks/gone/trace/1")
    assert await store.get("tasks/gone-not/screenshot/1") == b"kept"
    assert await delete_task_blobs(store, "gone") == 0


async def test_presign_is_a_working_url_where_the_backend_signs(store: ArtifactStore) -> None:
    await store.put("tasks/t4/screenshot/1", PNG, "image/png")
    url = await store.presign("tasks/t4/screenshot/1", 60)
    if store.name == "local":
        assert url is None  # a folder cannot sign: the API streams instead
        return
    assert url is not None and "X-Amz-Signature=" in url
    async with httpx.AsyncClient() as http:
        got = await http.get(url)
    assert got.status_code == 200 and got.content == PNG


async def test_s3_prefix_keeps_the_store_inside_its_part_of_the_bucket(
    s3_server: S3Server,
) -> None:
    bucket = s3_server.new_bucket()
    one = open_store(s3_server.config(bucket, prefix="one"))
    two = open_store(s3_server.config(bucket, prefix="two"))
    await one.put("tasks/t/screenshot/1", b"one", "image/jpeg")
    assert not await two.exists("tasks/t/screenshot/1")
    assert await delete_task_blobs(two, "t") == 0
    assert await one.get("tasks/t/screenshot/1") == b"one"
