"""Where artifact bytes live (issue 25, "Artifacts in object storage").

Rows in `artifacts` and `task_attachments` keep metadata only (task, step, kind, content
type, size, sha256, storage key); the bytes go to an `ArtifactStore`: a local folder (the
embedded default, under WEBAGENT_DATA_DIR) or S3-compatible object storage. Both are
`obstore` stores behind one class (app/store/objects.py), so request signing is the
library's. app/ and workers/ both import this package; it imports neither's internals.
"""

from app.store.base import ArtifactStore, BlobMissing, StoredBlob, blob_of
from app.store.config import StoreConfig, open_store

__all__ = ["ArtifactStore", "BlobMissing", "StoreConfig", "StoredBlob", "blob_of", "open_store"]
