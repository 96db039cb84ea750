"""`webagent profiles create | list | delete`: the server's browser profiles (saved logins)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from workers.cli.commands.tasks import ApiKey, AsJson, Server, connect

profiles = typer.Typer(help="Create, list and delete browser profiles.", no_args_is_help=True)


@profiles.command("create")
def create_profile(
    name: Annotated[str, typer.Argument(help="profile name, e.g. shop")],
    server: Server = None,
    api_key: ApiKey = None,
    as_json: AsJson = False,
) -> None:
    """Create an empty profile; a run with `--profile NAME` and save_profile fills it."""
    with connect(server, api_key) as client:
        made = client.create_profile(name)
    typer.echo(json.dumps(made.model_dump(mode="json")) if as_json else f"created {made.name}")


@profiles.command("list")
def list_profiles(server: Server = None, api_key: ApiKey = None, as_json: AsJson = False) -> None:
    """Profiles by name, with whether and when a run saved a login into them."""
    with connect(server, api_key) as client:
        items = client.list_profiles()
    if as_json:
        typer.echo(json.dumps([p.model_dump(mode="json") for p in items], indent=2))
        return
    for p in items:
        saved = p.saved_at.isoformat(timespec="seconds") if p.saved_at else "never saved"
        typer.echo(f"{p.name:<32} {saved}")
    if not items:
        typer.echo("no profiles")


@profiles.command("delete")
def delete_profile(
    name: Annotated[str, typer.Argument(help="profile name")],
    server: Server = None,
    api_key: ApiKey = None,
    as_json: AsJson = False,
) -> None:
    """Delete a profile and the cookies stored in it."""
    with connect(server, api_key) as client:
        client.delete_profile(name)
    typer.echo(json.dumps({"deleted": name}) if as_json else f"deleted {name}")


def register(app: typer.Typer) -> None:
    app.add_typer(profiles, name="profiles")
