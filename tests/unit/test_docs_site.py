"""The documentation site (issue 36): `make docs` builds docs/ with MkDocs offline and strict,
every page in nav exists and every page is in nav, and the two generated pages (configuration
from Settings, HTTP API from docs/openapi.json) are in step with their sources."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from app.api_reference_doc import render as render_http_api
from app.settings import Settings
from app.settings_doc import render as render_configuration

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
CONFIG = ROOT / "mkdocs.yml"


def mkdocs_config() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(CONFIG.read_text())
    return loaded


def nav_pages(nav: list[Any]) -> list[str]:
    pages: list[str] = []
    for entry in nav:
        value = next(iter(entry.values())) if isinstance(entry, dict) else entry
        pages += nav_pages(value) if isinstance(value, list) else [value]
    return pages


def test_configuration_page_is_generated_from_settings() -> None:
    committed = (DOCS / "configuration.md").read_text()
    assert committed == render_configuration(), "docs/configuration.md is stale: make docs-pages"


def test_every_setting_has_a_row_with_type_default_and_description() -> None:
    page = (DOCS / "configuration.md").read_text()
    for name in Settings.model_fields:
        rows = [r for r in page.splitlines() if r.startswith(f"| `WEBAGENT_{name.upper()}` |")]
        assert len(rows) == 1, name
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", rows[0])[1:-1]]
        assert len(cells) == 4 and all(cells), (name, cells)


def test_http_api_page_is_generated_from_the_committed_document() -> None:
    spec = json.loads((DOCS / "openapi.json").read_text())
    assert (DOCS / "http-api.md").read_text() == render_http_api(spec), (
        "docs/http-api.md is stale: make docs-pages"
    )
    page = (DOCS / "http-api.md").read_text()
    ids = [op["operationId"] for item in spec["paths"].values() for op in item.values()]
    assert ids and all(f"`{i}`" in page for i in ids)


def test_mkdocs_config_builds_offline_and_strict() -> None:
    config = mkdocs_config()
    assert config["docs_dir"] == "docs" and config["strict"] is True
    assert config["theme"]["name"] == "material"
    assert config["theme"]["font"] is False  # no Google Fonts fetched at build or view time
    plugins = [p if isinstance(p, str) else next(iter(p)) for p in config.get("plugins", [])]
    assert set(plugins) <= {"search"}, plugins  # nothing that downloads (social, privacy, ...)
    assert "mkdocs build --strict" in (ROOT / "Makefile").read_text()


def test_every_page_in_nav_exists_and_every_page_is_in_nav() -> None:
    pages = nav_pages(mkdocs_config()["nav"])
    assert len(pages) == len(set(pages))
    missing = [p for p in pages if not (DOCS / p).is_file()]
    assert missing == []
    on_disk = {str(p.relative_to(DOCS)) for p in DOCS.rglob("*.md")}
    assert on_disk == set(pages)


def test_readme_is_short_and_opens_with_the_two_commands() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 150
    first_block = readme.split("```")[1]
    assert "make run" in first_block and "make test" in first_block
    linked = re.findall(r"\]\((docs/[^)#]+)", readme)
    assert linked and [p for p in linked if not (ROOT / p).is_file()] == []


QUESTIONS = [
    "How fast is a step",
    "Tokens per step",
    "First observation",
    "Perception tokens",
    "SSE at scale",
    "Scale with workers",
    "MiniWoB++",
    "Memory repeats",
    "Answer check",
]


def test_benchmarks_answer_each_question_in_one_place() -> None:
    page = (DOCS / "benchmarks.md").read_text()
    sections = dict(re.findall(r"^## ([^\n]+)\n(.*?)(?=^## |\Z)", page, re.MULTILINE | re.DOTALL))
    for question in QUESTIONS:
        assert len(re.findall(rf"^## {re.escape(question)}$", page, re.MULTILINE)) == 1, question
        body = sections[question]
        assert "| command |" in body and "| latest" in body and "| goal |" in body, question
    assert len((DOCS / "changelog.md").read_text().splitlines()) <= 100
