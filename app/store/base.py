"""The ArtifactStore interface: put, read, stream, delete and (optionally) presign by key."""

from __future__ import annotations

import hashlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol


class BlobMissing(LookupError):
    """No object under the key (never stored, or deleted)."""


@dataclass(frozen=True)
class StoredBlob:
    """What a row keeps about bytes in the store."""

    key: str
    size: int
    sha256: str


def blob_of(key: str, data: bytes) -> StoredBlob:
    return StoredBlob(key=key, size=len(data), sha256=hashlib.sha256(data).hexdigest())


class ArtifactStore(Protocol):
    """Bytes by key. Keys are relative ("tasks/<task_id>/screenshot/3"); the store adds its
    folder or bucket prefix. A put to an existing key replaces it."""

    @property
    def name(self) -> str:
        """ "local" or "s3" (metrics, logs)."""
        ...

    async def put(self, key: str, data: bytes, content_type: str) -> StoredBlob: ...

    async def get(self, key: str) -> bytes:
        """The whole object; BlobMissing if there is none."""
        ...

    async def stream(self, key: str) -> AsyncIterator[bytes]:
        """The object in chunks; BlobMissing (raised before the first chunk) if there is none."""
        ...

    async def exists(self, key: str) -> bool: ...

    async def delete(self, key: str) -> None:
        """Remove the object; a missing one is not an error."""
        ...

    async def delete_prefix(self, prefix: str) -> int:
        """Remove every object under `prefix` ("tasks/<id>/"); returns how many."""
        ...

    async def newest_under(self, prefix: str) -> dict[str, datetime]:
        """Per first path part below `prefix` ("tasks/" -> task ids), the time its newest
        object was written (for sweeping objects whose row is gone)."""
        ...

    async def presign(self, key: str, seconds: int) -> str | None:
        """A GET URL valid for `seconds`, or None where the backend cannot sign (local)."""
        ...
