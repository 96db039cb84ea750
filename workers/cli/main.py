"""The `webagent` console script: a click group whose commands load on first use.

`webagent --help` lists the commands from the table below without importing any command
module (they pull in the browser, the database layer and the model client), so it answers
in a fraction of a second; a command's module is imported only when that command (or its
own --help) runs. Each module registers its commands on a Typer app (`register(app)`).
"""

from __future__ import annotations

import importlib
from typing import Any

import typer
import typer.main
from typer.core import TyperGroup

HELP = "webagent: a self-hosted web agent as a service."

# command -> (module that registers it, one-line help shown by `webagent --help`)
COMMANDS: dict[str, tuple[str, str]] = {
    "serve": (
        "workers.cli.commands.service",
        "Run the HTTP API (and, without Redis, the workers).",
    ),
    "worker": (
        "workers.cli.commands.service",
        "Run rq worker processes on the queue (needs Redis).",
    ),
    "run": ("workers.cli.commands.service", "Run one task and watch it live."),
    "migrate": ("workers.cli.commands.service", "Create or upgrade the database schema."),
    "tasks": ("workers.cli.commands.tasks", "List, show, cancel and delete tasks on a server."),
    "explore": (
        "workers.cli.commands.explore",
        "Explore a site (no model calls) and print its WebsiteMem.",
    ),
    "profiles": ("workers.cli.commands.profiles", "Create, list and delete browser profiles."),
    "keys": ("workers.cli.commands.keys", "Create, list and revoke API keys."),
    "artifacts": (
        "workers.cli.commands.artifacts",
        "Move artifact bytes out of the database into the artifact store.",
    ),
    "observe": ("workers.cli.commands.observe", "Print what the agent sees of a page."),
    "bench": ("workers.cli.commands.bench", "Run benchmarks (MiniWoB++, real apps)."),
}


def load(name: str) -> Any:
    """The command `name` (a Typer click command), importing the module that registers it."""
    if name not in COMMANDS:
        return None
    module = importlib.import_module(COMMANDS[name][0])
    app = typer.Typer()
    module.register(app)
    return typer.main.get_group(app).commands.get(name)


class LazyGroup(TyperGroup):
    """Lists COMMANDS without importing them; loads one when it is invoked."""

    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        return load(cmd_name)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, text) for name, (_, text) in COMMANDS.items()])


# plain help (no rich): the top-level help is a static table, no import of rich needed
cli = typer.Typer(
    cls=LazyGroup, help=HELP, no_args_is_help=True, rich_markup_mode=None, add_completion=False
)


@cli.callback()
def root() -> None:
    """webagent: a self-hosted web agent as a service."""


def _register_all() -> None:
    """Kept for callers that build the whole command tree (tests invoke `cli` directly)."""


def main() -> None:
    cli(prog_name="webagent")
