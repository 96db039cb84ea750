"""files.store: a kept file goes to the task's artifact hook with its guessed content type,
unless it is over WEBAGENT_DOWNLOAD_ARTIFACT_MAX_BYTES (the file stays readable either way)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

from app.settings import Settings
from workers.browser.act import files


def _session(cap: int, kept: list[tuple[str, str, bytes]]) -> Any:
    async def keep_file(name: str, content_type: str, data: bytes) -> None:
        kept.append((name, content_type, data))

    return SimpleNamespace(settings=Settings(download_artifact_max_bytes=cap), keep_file=keep_file)


async def test_a_kept_file_is_stored_with_its_content_type(tmp_path: Path) -> None:
    path = tmp_path / "invoice.pdf"
    path.write_bytes(b"%PDF-1.4 x")
    kept: list[tuple[str, str, bytes]] = []
    await files.store(_session(100, kept), path)
    assert kept == [("invoice.pdf", "application/pdf", b"%PDF-1.4 x")]


async def test_a_file_over_the_cap_is_not_stored(tmp_path: Path) -> None:
    path = tmp_path / "big.bin"
    path.write_bytes(b"x" * 101)
    kept: list[tuple[str, str, bytes]] = []
    await files.store(_session(100, kept), path)
    assert kept == []
    path.write_bytes(b"x" * 100)  # at the cap: stored
    await files.store(_session(100, kept), path)
    assert kept == [("big.bin", "application/octet-stream", b"x" * 100)]
