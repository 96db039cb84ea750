"""What a newcomer reads first (issue 23 §7): the README's quick start says how to point the
agent at a page on this machine, and the configuration reference (docs/configuration.md, since
issue 36) lists where the data lives."""

from __future__ import annotations

import re
from pathlib import Path

from app.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text()
CONFIGURATION = (ROOT / "docs" / "configuration.md").read_text()


def section(title: str) -> str:
    start = README.index(f"## {title}\n")
    end = README.find("\n## ", start + 1)
    return README[start : end if end != -1 else None]


def test_configuration_table_lists_the_data_dir_with_its_default() -> None:
    rows = [r for r in CONFIGURATION.splitlines() if r.startswith("| `")]
    (row,) = [r for r in rows if re.match(r"\| `WEBAGENT_DATA_DIR`", r)]
    assert f"`{Settings.model_fields['data_dir'].default}`" in row


def test_quick_start_says_how_to_run_against_a_local_page() -> None:
    quick = section("Quick start")
    assert "WEBAGENT_ALLOW_PRIVATE_NETWORKS=true" in quick
    assert re.search(r"http://127\.0\.0\.1:\d+/", quick)
    assert "python3 -m http.server" in quick
