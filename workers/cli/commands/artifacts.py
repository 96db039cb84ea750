"""`webagent artifacts migrate`: move artifact and attachment bytes that older rows hold in
the database into the configured artifact store (app/store/migrate.py). Safe to stop and
run again; a second run moves nothing."""

from __future__ import annotations

import asyncio
import json
from typing import Annotated

import typer

from app.db import create_engine, session_factory
from app.db.migrate import upgrade
from app.settings import get_settings
from app.store import open_store
from app.store.migrate import BATCH, Moved, migrate_blobs

artifacts = typer.Typer(help="Artifact storage administration.", no_args_is_help=True)


async def _migrate(batch: int, limit: int) -> Moved:
    settings = get_settings()
    url = settings.effective_database_url
    await asyncio.to_thread(upgrade, url)  # the 0016 columns first
    engine = create_engine(url)
    try:
        return await migrate_blobs(
            session_factory(engine), open_store(settings), batch=batch, limit=limit
        )
    finally:
        await engine.dispose()


@artifacts.command("migrate")
def migrate(
    batch: Annotated[int, typer.Option(min=1, help="rows per transaction")] = BATCH,
    limit: Annotated[int, typer.Option(min=0, help="stop after this many rows (0: all)")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
) -> None:
    """Move blobs out of the database into WEBAGENT_ARTIFACT_STORE (resumable)."""
    moved = asyncio.run(_migrate(batch, limit))
    if as_json:
        typer.echo(json.dumps(moved.__dict__))
        return
    typer.echo(
        f"moved {moved.artifacts} artifacts and {moved.attachments} attachments"
        f" ({moved.bytes} bytes) to the artifact store"
    )


def register(app: typer.Typer) -> None:
    app.add_typer(artifacts, name="artifacts")
