"""One way the API hands out stored bytes (artifacts, step and approval screenshots): a
307 redirect to a short-lived presigned URL when WEBAGENT_ARTIFACT_PRESIGN_S > 0 and the
store signs (S3), else the bytes streamed from the store. Callers check the tenant first."""

from __future__ import annotations

from collections.abc import Mapping

from fastapi import HTTPException, Response, status
from fastapi.responses import RedirectResponse, StreamingResponse
from sqlalchemy.ext.asyncio import AsyncSession

from app.db.models import Artifact
from app.store import ArtifactStore, BlobMissing
from app.store.records import serve_artifact


async def artifact_response(
    session: AsyncSession,
    store: ArtifactStore,
    row: Artifact,
    *,
    presign_s: int,
    headers: Mapping[str, str],
    default_type: str,
) -> Response:
    try:
        served = await serve_artifact(session, store, row, presign_s)
    except BlobMissing as exc:  # the row outlived its object (deleted from the bucket)
        raise HTTPException(status.HTTP_404_NOT_FOUND, detail="artifact bytes are gone") from exc
    if served.url is not None:
        return RedirectResponse(served.url, status_code=status.HTTP_307_TEMPORARY_REDIRECT)
    assert served.chunks is not None
    out = dict(headers)
    if row.storage_key:  # the stored object's size, recorded when it was written
        out["Content-Length"] = str(row.size)
    return StreamingResponse(
        served.chunks, media_type=row.content_type or default_type, headers=out
    )
