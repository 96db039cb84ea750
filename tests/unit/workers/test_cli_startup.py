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


def test_the_top_level_help_names_every_tasks_subcommand() -> None:
    """Issue 37 item 5: `--help` said "list, show and cancel" and hid `tasks delete`."""
    tasks = load("tasks")
    assert tasks is not None
    summary = COMMANDS["tasks"][1].lower()
    for sub in tasks.commands:  # type: ignore[attr-defined]
        assert sub in summary, sub


def test_run_against_a_server_that_is_down_prints_one_line() -> None:
    """Issue 37 item 5: a 254-line traceback became one line naming the server."""
    import socket

    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    args = ["webagent", "run", "--server", f"http://127.0.0.1:{port}", "--url", "http://a.test/"]
    done = subprocess.run(
        [sys.executable, "-c", "from workers.cli.main import main; main()", *args[1:], "find x"],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    lines = (done.stdout + done.stderr).strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, lines
    assert lines[0].startswith(f"cannot reach http://127.0.0.1:{port}")
