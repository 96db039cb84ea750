"""A real S3-compatible server for the artifact store tests: moto in server mode on an
ephemeral 127.0.0.1 port (its own thread), one fresh bucket per test."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import pytest

from app.store import StoreConfig


@dataclass(frozen=True)
class S3Server:
    endpoint: str

    def new_bucket(self) -> str:
        """A fresh bucket (moto takes the unsigned create request)."""
        name = f"webagent-{uuid.uuid4().hex[:12]}"
        httpx.put(f"{self.endpoint}/{name}", timeout=10).raise_for_status()
        return name

    def config(self, bucket: str, **kw: object) -> StoreConfig:
        return StoreConfig(
            backend="s3",
            bucket=bucket,
            endpoint=self.endpoint,
            region="us-east-1",
            access_key_id="test-key",
            secret_access_key="test-secret",
            **kw,  # type: ignore[arg-type]
        )

    def settings(self, bucket: str) -> dict[str, object]:
        """Settings(**...) keys for an s3 artifact store in this server's bucket."""
        return {
            "artifact_store": "s3",
            "artifact_s3_bucket": bucket,
            "artifact_s3_endpoint": self.endpoint,
            "artifact_s3_region": "us-east-1",
            "artifact_s3_access_key_id": "test-key",
            "artifact_s3_secret_access_key": "test-secret",
        }


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3Server]:
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        port = server._server.server_port  # type: ignore[union-attr]
        yield S3Server(endpoint=f"http://127.0.0.1:{port}")
    finally:
        server.stop()
