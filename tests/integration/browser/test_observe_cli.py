"""`webagent observe FILE --mode som --screenshot out.png` on real Chromium."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.settings import get_settings
from workers.cli.main import _register_all, cli

pytestmark = pytest.mark.browser

PAGES = Path(__file__).parent / "pages"


def test_observe_som_writes_an_annotated_png(
    tmp_path: Path, chromium_path: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WEBAGENT_CHROMIUM_PATH", chromium_path)
    get_settings.cache_clear()
    _register_all()
    out = tmp_path / "out.png"
    result = CliRunner().invoke(
        cli,
        ["observe", str(PAGES / "long.html"), "--mode", "som", "--screenshot", str(out), "--json"],
    )
    assert result.exit_code == 0, result.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    figures = json.loads(result.output[result.output.index("{\n") :])
    assert figures["mode"] == "som" and figures["refs"] > 0 and figures["reused"] is False
    phases = {"imports", "browser_start", "context", "session_open", "goto", "observe", "close"}
    assert set(figures["timings_ms"]) == phases  # the start's phases (issue 22)
    assert figures["observe_ms"] == figures["timings_ms"]["observe"] > 0
    assert "Catalogue" in result.output
    get_settings.cache_clear()
