"""ArtifactStore over an `obstore` store: `obstore.store.LocalStore` (a folder) or
`obstore.store.S3Store` (AWS S3, MinIO, R2, GCS interop). One class, so both backends
behave alike and pass one test suite (tests/integration/store/test_store_contract.py)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from datetime import datetime, timedelta
from typing import Any

import obstore
from obstore.exceptions import NotFoundError

from app.store.base import BlobMissing, StoredBlob, blob_of

CHUNK = 256 * 1024  # streamed to HTTP clients in pieces of at least this size
DELETE_BATCH = 500


class ObjectArtifactStore:
    """`name` is "local" or "s3"; `signs` whether presign() returns URLs."""

    def __init__(self, store: Any, name: str, *, signs: bool) -> None:
        self._store = store
        self._name = name
        self._signs = signs

    @property
    def name(self) -> str:
        return self._name

    async def put(self, key: str, data: bytes, content_type: str) -> StoredBlob:
        attributes: Any = {"Content-Type": content_type} if self._signs else None
        await obstore.put_async(self._store, key, data, attributes=attributes)
        return blob_of(key, data)

    async def get(self, key: str) -> bytes:
        try:
            result = await obstore.get_async(self._store, key)
            return bytes(await result.bytes_async())
        except (NotFoundError, FileNotFoundError) as exc:
            raise BlobMissing(key) from exc

    async def stream(self, key: str) -> AsyncIterator[bytes]:
        try:
            result = await obstore.get_async(self._store, key)
        except (NotFoundError, FileNotFoundError) as exc:
            raise BlobMissing(key) from exc
        return _chunks(result.stream(min_chunk_size=CHUNK))

    async def exists(self, key: str) -> bool:
        try:
            await obstore.head_async(self._store, key)
        except (NotFoundError, FileNotFoundError):
            return False
        return True

    async def delete(self, key: str) -> None:
        # S3 deletes are idempotent; a local store reports the missing file
        with contextlib.suppress(NotFoundError, FileNotFoundError):
            await obstore.delete_async(self._store, key)

    async def delete_prefix(self, prefix: str) -> int:
        paths: list[str] = []
        async for chunk in obstore.list(self._store, prefix):
            paths.extend(meta["path"] for meta in chunk)
        for start in range(0, len(paths), DELETE_BATCH):
            batch = paths[start : start + DELETE_BATCH]
            if self._signs:
                await obstore.delete_async(self._store, batch)
            else:
                for path in batch:
                    await self.delete(path)
        return len(paths)

    async def newest_under(self, prefix: str) -> dict[str, datetime]:
        newest: dict[str, datetime] = {}
        async for chunk in obstore.list(self._store, prefix):
            for meta in chunk:
                part = meta["path"][len(prefix) :].split("/", 1)[0]
                when = meta["last_modified"]
                if part and (part not in newest or when > newest[part]):
                    newest[part] = when
        return newest

    async def presign(self, key: str, seconds: int) -> str | None:
        if not self._signs:
            return None
        url: str = await obstore.sign_async(self._store, "GET", key, timedelta(seconds=seconds))
        return url


async def _chunks(stream: Any) -> AsyncIterator[bytes]:
    async for chunk in stream:
        yield bytes(chunk)
