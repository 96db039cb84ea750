"""The Alembic tree lives in top-level `migrations/` and ships in the wheel and the image."""

from __future__ import annotations

import fnmatch
import tomllib
from importlib.resources import files
from pathlib import Path

from alembic.script import ScriptDirectory

from app.db.migrate import alembic_config, head_revision

ROOT = Path(__file__).resolve().parents[3]
TREE = ROOT / "migrations"


def test_alembic_reads_the_top_level_tree() -> None:
    location = Path(alembic_config("sqlite://").get_main_option("script_location") or "")
    assert location.resolve() == TREE.resolve() == Path(str(files("migrations"))).resolve()
    revisions = {r.revision for r in ScriptDirectory(str(TREE)).walk_revisions()}
    assert {"0001_initial", "0002_ledger_memory"} <= revisions
    assert head_revision() in revisions
    assert not (ROOT / "app" / "db" / "migrations").exists()


def test_every_migration_file_is_package_data() -> None:
    """`pip install .` (the Dockerfile) must carry env.py, the template and every revision."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    setuptools = project["tool"]["setuptools"]
    assert "migrations*" in setuptools["packages"]["find"]["include"]
    globs = setuptools["package-data"]["migrations"]
    shipped = [
        p.relative_to(TREE).as_posix()
        for p in TREE.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    ]
    assert "versions/0002_ledger_memory.py" in shipped
    for rel in shipped:
        assert any(fnmatch.fnmatch(rel, g) for g in globs), rel


def test_dockerfile_copies_the_tree_before_installing() -> None:
    lines = [ln.strip() for ln in (ROOT / "Dockerfile").read_text().splitlines()]
    copy = lines.index("COPY migrations ./migrations")
    install = next(i for i, ln in enumerate(lines) if ln.startswith("RUN pip install"))
    assert copy < install
