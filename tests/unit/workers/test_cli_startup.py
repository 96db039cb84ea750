"""`webagent --help` imports no command module; every listed command loads by its name."""

from __future__ import annotations

import json
import subprocess
import sys

from typer.testing import CliRunner

from workers.cli.main import COMMANDS, cli, load

HEAVY = ("sqlalchemy", "openai", "playwright", "fastapi", "uvicorn", "httpx", "rich")
PROBE = """
import json, sys
from workers.cli.main import main
sys.argv = ["webagent", "--help"]
try:
    main()
except SystemExit:
    pass
heads = set(json.loads(HEAVY_JSON))
loaded = [m for m in sys.modules
          if m.split(".")[0] in heads or m.startswith("workers.cli.commands")]
print(json.dumps(sorted(loaded)))
"""


def test_help_lists_every_command_without_importing_them() -> None:
    probe = PROBE.replace("HEAVY_JSON", repr(json.dumps(HEAVY)))
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    *help_lines, loaded = done.stdout.rstrip().splitlines()
    assert json.loads(loaded) == []
    listed = "\n".join(help_lines)
    for name in COMMANDS:
        assert f"  {name} " in listed, name


def test_each_listed_command_loads() -> None:
    for name in COMMANDS:
        if name == "bench":  # imports the MiniWoB harness; covered by the bench tests
            continue
        command = load(name)
        assert command is not None and command.name == name, name
    assert load("no-such-command") is None
    result = CliRunner().invoke(cli, ["no-such-command"])
    assert result.exit_code == 2 and "No such command" in result.output
