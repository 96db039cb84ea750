"""The `webagent` console script: composes the command modules (serve, worker, ...)."""

from __future__ import annotations

import typer

cli = typer.Typer(help="webagent: a self-hosted web agent as a service.", no_args_is_help=True)


def _register_all() -> None:
    # Each command module registers its own commands; add new modules here.
    from workers.commands import bench, keys, observe, service

    service.register(cli)
    bench.register(cli)
    observe.register(cli)
    keys.register(cli)


def main() -> None:
    _register_all()
    cli()
