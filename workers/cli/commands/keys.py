"""`webagent keys create | list | revoke`: the operator's API key administration.

A new key is printed once; the database keeps its SHA-256 and public prefix only.
"""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any

import typer

from app.auth import parse_scopes
from app.contracts import DEFAULT_TENANT
from app.db import create_engine, repositories, session_factory
from app.db.migrate import upgrade
from app.settings import get_settings

keys = typer.Typer(help="Create, list and revoke API keys.", no_args_is_help=True)
AsJson = Annotated[bool, typer.Option("--json", help="print JSON")]


def key_json(row: Any) -> dict[str, Any]:
    """A key as `--json` prints it (never the key itself, which only `create` shows once)."""
    return {
        "id": row.id,
        "prefix": row.prefix,
        "name": row.name,
        "tenant": row.tenant_id,
        "scopes": sorted(str(row.scopes).split()),
        "created_at": row.created_at.isoformat() if row.created_at else None,
        "revoked_at": row.revoked_at.isoformat() if row.revoked_at else None,
    }


async def _with_session(work: Any) -> Any:
    url = get_settings().effective_database_url
    await asyncio.to_thread(upgrade, url)
    engine = create_engine(url)
    try:
        async with session_factory(engine)() as session:
            result = await work(session)
            await session.commit()
            return result
    finally:
        await engine.dispose()


@keys.command("create")
def create(
    name: Annotated[str, typer.Option(help="who or what uses the key, e.g. ci-bot")],
    scopes: Annotated[
        str, typer.Option(help="comma-separated: tasks:write, tasks:read, learnings:read, admin")
    ] = "tasks:write,tasks:read",
    tenant: Annotated[str, typer.Option(help="the client the key acts for")] = DEFAULT_TENANT,
    as_json: AsJson = False,
) -> None:
    """Create a key and print it once (it cannot be shown again)."""
    try:
        parsed = parse_scopes(scopes)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--scopes") from exc

    async def work(session: Any) -> Any:
        return await repositories.create_api_key(
            session, tenant_id=tenant, name=name, scopes=parsed
        )

    row, plaintext = asyncio.run(_with_session(work))
    if as_json:
        typer.echo(json.dumps({"key": plaintext, **key_json(row)}))
        typer.echo("Store the key now: only its hash is kept.", err=True)
        return
    typer.echo(plaintext)
    typer.echo(
        f"id {row.id}  prefix {row.prefix}  tenant {row.tenant_id}  scopes {row.scopes}\n"
        "Store it now: only its hash is kept.",
        err=True,
    )


@keys.command("list")
def list_keys(
    tenant: Annotated[str | None, typer.Option(help="only this client's keys")] = None,
    as_json: AsJson = False,
) -> None:
    """Every key with its prefix, scopes and state (never the key itself)."""

    async def work(session: Any) -> Any:
        return await repositories.list_api_keys(session, tenant_id=tenant)

    rows = asyncio.run(_with_session(work))
    if as_json:
        typer.echo(json.dumps([key_json(row) for row in rows], indent=2))
        return
    for row in rows:
        state = f"revoked {row.revoked_at:%Y-%m-%d %H:%M}" if row.revoked_at else "active"
        typer.echo(
            f"{row.id}  {row.prefix}  {row.tenant_id}  {row.name}  [{row.scopes}]  "
            f"created {row.created_at:%Y-%m-%d %H:%M}  {state}"
        )


@keys.command("revoke")
def revoke(
    key: Annotated[str, typer.Argument(help="the key's id or public prefix")],
    as_json: AsJson = False,
) -> None:
    """Revoke a key at once; requests with it get 401 from then on."""

    async def work(session: Any) -> Any:
        return await repositories.revoke_api_key(session, key_id=key, tenant_id=None)

    if not asyncio.run(_with_session(work)):
        typer.echo(f"no active key {key}", err=True)
        raise typer.Exit(1)
    typer.echo(json.dumps({"revoked": key}) if as_json else f"revoked {key}")


def register(app: typer.Typer) -> None:
    app.add_typer(keys, name="keys")
