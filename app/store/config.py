"""Which ArtifactStore a process uses, from WEBAGENT_ARTIFACT_* settings."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.settings import Settings
from app.store.base import ArtifactStore


@dataclass(frozen=True)
class StoreConfig:
    backend: str = "local"  # "local" or "s3"
    local_dir: str = ".webagent/artifacts"
    bucket: str = ""
    endpoint: str = ""  # empty: AWS; else MinIO, R2, GCS interop, ... (http:// allowed)
    region: str = ""
    prefix: str = ""
    access_key_id: str = ""  # empty: the AWS_* environment / instance credentials
    secret_access_key: str = ""
    presign_s: int = 0  # >0: the API redirects to a URL valid this long (S3 only)

    @classmethod
    def of(cls, settings: Settings) -> StoreConfig:
        return cls(
            backend=settings.artifact_store,
            local_dir=settings.artifact_dir or str(Path(settings.data_dir) / "artifacts"),
            bucket=settings.artifact_s3_bucket,
            endpoint=settings.artifact_s3_endpoint,
            region=settings.artifact_s3_region,
            prefix=settings.artifact_s3_prefix,
            access_key_id=settings.artifact_s3_access_key_id,
            secret_access_key=settings.artifact_s3_secret_access_key.get_secret_value(),
            presign_s=settings.artifact_presign_s,
        )


def open_store(config: StoreConfig | Settings) -> ArtifactStore:
    """The configured store; a missing bucket for "s3" is a ValueError naming the setting."""
    from obstore.store import LocalStore, S3Store

    from app.store.objects import ObjectArtifactStore

    cfg = config if isinstance(config, StoreConfig) else StoreConfig.of(config)
    if cfg.backend == "local":
        folder = Path(cfg.local_dir).resolve()
        folder.mkdir(parents=True, exist_ok=True)
        return ObjectArtifactStore(LocalStore(folder, mkdir=True), "local", signs=False)
    if cfg.backend != "s3":
        raise ValueError(f"unknown WEBAGENT_ARTIFACT_STORE {cfg.backend!r}: use local or s3")
    if not cfg.bucket:
        raise ValueError("WEBAGENT_ARTIFACT_STORE=s3 needs WEBAGENT_ARTIFACT_S3_BUCKET")
    options: dict[str, Any] = {}
    if cfg.endpoint:
        options["endpoint"] = cfg.endpoint
    if cfg.region:
        options["region"] = cfg.region
    if cfg.access_key_id:
        options["access_key_id"] = cfg.access_key_id
        options["secret_access_key"] = cfg.secret_access_key
    client: Any = {"allow_http": True} if cfg.endpoint.startswith("http://") else None
    s3 = S3Store(cfg.bucket, prefix=cfg.prefix or None, client_options=client, **options)
    return ObjectArtifactStore(s3, "s3", signs=True)
