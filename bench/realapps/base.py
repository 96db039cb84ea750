"""The contract of one real application of the bench (issue 33) and of its tasks.

Each app lives in `bench/realapps/apps/<name>/__init__.py` and exposes `APP: RealApp`.
Its code and data live under `<root>/<name>/` (root: `.realapps/` of the checkout, ignored by
git): a virtualenv of its own (the app's pinned versions, never the service's), a pristine
seeded database and the working copy the server uses. Tasks live in
`bench/realapps/tasks/<name>.yaml` as a list of `Task` mappings; a task's `check` names a
function in `bench/realapps/apps/<name>/checks.py`, `check(app, root, answer) -> Verdict`,
that reads the app's state after the run (SQL on its database, or the app's ORM through
`RealApp.run_python`) and/or compares the run's answer.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol


@dataclass(frozen=True)
class Verdict:
    ok: bool
    why: str  # what was found, for the report ("order 12 has state 'p'", "answer lacks '42'")


@dataclass(frozen=True)
class Task:
    id: str  # "<app>-<nn>", unique over the bench
    app: str
    instruction: str  # as a user writes it, with every value needed
    start_path: str  # path on the app's base URL where the run starts
    check: str  # function name in the app's checks.py
    kind: str  # "lookup" | "transaction" | "staff" | "must_fail"
    secrets: dict[str, str] = field(default_factory=dict)  # passwords, passed as task secrets
    repeat_of: str | None = None  # the task of the same template with other values
    min_steps: int = 1  # a careful person's step count, for the 10-25 step class
    output_schema: dict | None = None  # JSON Schema of result.data, when the task asks for one


class RealApp(Protocol):
    name: str
    port: int  # fixed 127.0.0.1 port (`make realapps-serve`)
    version: str  # pinned release

    def install(self, root: Path) -> None:
        """Create `<root>/<name>/venv`, install the pinned app, and build the pristine seed."""

    def reset(self, root: Path) -> None:
        """Put the working database back to the pristine seed (seconds: a file copy or a
        Postgres template); the server may keep running or be restarted by it."""

    def serve(self, root: Path) -> subprocess.Popen[bytes]:
        """Start the app on 127.0.0.1:port; return once it answers HTTP."""

    def base_url(self) -> str:
        """`http://127.0.0.1:<port>`."""

    def run_python(self, root: Path, code: str) -> str:
        """Run `code` with the app's own interpreter and settings (its ORM) and return stdout;
        for checks and seeds."""
