"""`webagent keys create | list | revoke` against a SQLite file, and `serve`'s bind check."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.auth import well_formed
from app.db import create_engine, repositories, session_factory
from app.settings import Settings, get_settings
from workers.cli.main import _register_all, cli


@pytest.fixture
def db_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    url = f"sqlite+aiosqlite:///{tmp_path}/keys.db"
    monkeypatch.setenv("WEBAGENT_DATABASE_URL", url)
    monkeypatch.delenv("WEBAGENT_API_KEYS_REQUIRED", raising=False)
    get_settings.cache_clear()
    _register_all()
    yield url
    get_settings.cache_clear()


async def _lookup(url: str, key: str) -> tuple[str, str] | None:
    engine = create_engine(url)
    try:
        async with session_factory(engine)() as s:
            row = await repositories.find_api_key(s, plaintext=key)
            return None if row is None else (row.tenant_id, row.scopes)
    finally:
        await engine.dispose()


def test_keys_create_list_revoke(db_env: str) -> None:
    runner = CliRunner()
    made = runner.invoke(
        cli, ["keys", "create", "--name", "ci", "--scopes", "tasks:read,admin", "--tenant", "acme"]
    )
    assert made.exit_code == 0, made.output
    key = made.stdout.strip().splitlines()[0]
    assert well_formed(key)
    assert asyncio.run(_lookup(db_env, key)) == ("acme", "admin tasks:read")
    listed = runner.invoke(cli, ["keys", "list"])
    assert listed.exit_code == 0 and "acme" in listed.stdout and "active" in listed.stdout
    assert key not in listed.stdout and key[:11] in listed.stdout  # prefix only
    revoked = runner.invoke(cli, ["keys", "revoke", key[:11]])
    assert revoked.exit_code == 0, revoked.output
    assert asyncio.run(_lookup(db_env, key)) is None
    assert "revoked" in runner.invoke(cli, ["keys", "list"]).stdout
    assert runner.invoke(cli, ["keys", "revoke", key[:11]]).exit_code == 1


def test_keys_create_refuses_unknown_scope(db_env: str) -> None:
    result = CliRunner().invoke(cli, ["keys", "create", "--name", "x", "--scopes", "tasks:all"])
    assert result.exit_code == 2 and "unknown scope" in result.output


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.10", "::", "example.com"])
def test_serve_refuses_public_bind_without_keys(db_env: str, host: str) -> None:
    result = CliRunner().invoke(cli, ["serve", "--host", host, "--port", "1"])
    assert result.exit_code == 2
    assert "refusing to serve" in result.output and "WEBAGENT_API_KEYS_REQUIRED" in result.output


def test_bind_rules() -> None:
    from workers.cli.commands.service import unsafe_bind

    off = Settings(api_keys_required=False)
    assert unsafe_bind("127.0.0.1", off) is None and unsafe_bind("::1", off) is None
    assert unsafe_bind("localhost", off) is None
    assert unsafe_bind("0.0.0.0", off) is not None
    assert unsafe_bind("0.0.0.0", Settings(api_keys_required=True)) is None
    assert unsafe_bind("0.0.0.0", Settings(allow_unauthenticated_bind=True)) is None


def test_keys_json_output(db_env: str) -> None:
    """Issue 23 §6: `keys` had no --json."""
    runner = CliRunner()
    made = runner.invoke(cli, ["keys", "create", "--name", "bot", "--json"])
    assert made.exit_code == 0, made.output
    created = json.loads(made.stdout)
    assert well_formed(created["key"]) and created["name"] == "bot"
    assert created["scopes"] == ["tasks:read", "tasks:write"] and created["prefix"]
    listed = json.loads(runner.invoke(cli, ["keys", "list", "--json"]).stdout)
    assert [k["id"] for k in listed] == [created["id"]]
    assert "key" not in listed[0] and listed[0]["revoked_at"] is None
    revoked = runner.invoke(cli, ["keys", "revoke", created["id"], "--json"])
    assert json.loads(revoked.stdout) == {"revoked": created["id"]}
