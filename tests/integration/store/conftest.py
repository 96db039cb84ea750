"""`store`: the artifact store under test, once per backend (local folder, S3 via moto)."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.store import ArtifactStore, StoreConfig, open_store
from tests.support.s3_server import S3Server


@pytest.fixture(params=["local", "s3"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> ArtifactStore:
    if request.param == "local":
        return open_store(StoreConfig(backend="local", local_dir=str(tmp_path / "artifacts")))
    server: S3Server = request.getfixturevalue("s3_server")
    return open_store(server.config(server.new_bucket()))
