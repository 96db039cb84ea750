"""The real applications of `bench/realapps/` (issue 33) and their tasks, loaded by path.

The bench's folder is not part of the installed package: its apps, checks and task files are
found under `bench_dir` (default: `bench/realapps` of the checkout this module sits in), which
is put on `sys.path` through its checkout so the app modules import `bench.realapps.base`.
Apps' files live under `<checkout>/.realapps/` (git-ignored), the `root` of every app call.

A task's check is `checks.<task.check>`; its scripted solve, for the check test, is
`checks.solve_<task.check>(app, root) -> str`, the answer a correct run gives.
"""

from __future__ import annotations

import dataclasses
import importlib
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_BENCH_DIR = Path(__file__).resolve().parents[2] / "bench" / "realapps"


class CatalogError(Exception):
    """A task file, app or check is missing or malformed."""


@dataclass(frozen=True)
class Catalog:
    bench_dir: Path

    @property
    def root(self) -> Path:
        """Where the apps' files live: `.realapps/` of the checkout."""
        return self.bench_dir.parents[1] / ".realapps"

    def _import(self, module: str) -> Any:
        checkout = str(self.bench_dir.parents[1])
        if checkout not in sys.path:
            sys.path.insert(0, checkout)
        try:
            return importlib.import_module(module)
        except ImportError as exc:
            raise CatalogError(f"cannot import {module} from {checkout}: {exc}") from exc

    def app_names(self) -> list[str]:
        apps = self.bench_dir / "apps"
        return sorted(p.parent.name for p in apps.glob("*/__init__.py"))

    def app(self, name: str) -> Any:
        if name not in self.app_names():
            raise CatalogError(f"no app {name!r} under {self.bench_dir / 'apps'}")
        return self._import(f"bench.realapps.apps.{name}").APP

    def installed(self, app: Any) -> bool:
        """The app's own `installed(root)` when it has one, else its folder under root."""
        probe = getattr(app, "installed", None)
        return bool(probe(self.root)) if callable(probe) else (self.root / app.name).is_dir()

    def checks(self, name: str) -> Any:
        return self._import(f"bench.realapps.apps.{name}.checks")

    def tasks(self, app: str | None = None) -> list[Any]:
        """Every task of every tasks/*.yaml (or of one app), validated against `Task`."""
        import yaml

        task_cls = self._import("bench.realapps.base").Task
        names = {f.name for f in dataclasses.fields(task_cls)}
        out = []
        for path in sorted((self.bench_dir / "tasks").glob("*.yaml")):
            rows = yaml.safe_load(path.read_text(encoding="utf-8")) or []
            if not isinstance(rows, list):
                raise CatalogError(f"{path}: a list of tasks expected")
            for row in rows:
                unknown = set(row) - names if isinstance(row, dict) else {"<not a mapping>"}
                if unknown:
                    raise CatalogError(f"{path}: unknown task fields {sorted(unknown)}")
                try:
                    task = task_cls(**row)
                except TypeError as exc:
                    raise CatalogError(f"{path}: {row.get('id')}: {exc}") from exc
                if app is None or task.app == app:
                    out.append(task)
        ids = [t.id for t in out]
        if len(ids) != len(set(ids)):
            raise CatalogError(
                f"duplicate task ids: {sorted({i for i in ids if ids.count(i) > 1})}"
            )
        return out

    def check_of(self, task: Any) -> Callable[[Any, Path, str], Any]:
        return self._function(task, task.check)

    def solve_of(self, task: Any) -> Callable[[Any, Path], str]:
        return self._function(task, f"solve_{task.check}")

    def _function(self, task: Any, name: str) -> Any:
        function = getattr(self.checks(task.app), name, None)
        if not callable(function):
            raise CatalogError(f"{task.id}: apps/{task.app}/checks.py has no function {name}")
        return function

    def request_counter(self) -> Callable[[Any], int]:
        """o200k tokens of one chat request, counted by bench/request_tokens.py."""
        counting = self._import("bench.request_tokens")
        encoding = counting.o200k()
        return lambda request: int(counting.count_request(request, encoding).total)

    def select(self, ids: list[str] | None = None, app: str | None = None) -> list[Any]:
        """The tasks named (in that order), or those of one app, or all."""
        tasks = self.tasks(app)
        if not ids:
            return tasks
        by_id = {t.id: t for t in tasks}
        missing = [i for i in ids if i not in by_id]
        if missing:
            raise CatalogError(f"unknown tasks {missing}")
        return [by_id[i] for i in ids]


def main(argv: list[str] | None = None) -> int:
    """`install`: install and seed every app (idempotent: an installed app is kept);
    `serve`: serve them all on their ports until Ctrl-C. (`make realapps`, `make
    realapps-serve`.)"""
    import time

    args = sys.argv[1:] if argv is None else argv
    catalog = Catalog(DEFAULT_BENCH_DIR)
    if args == ["install"]:
        for name in catalog.app_names():
            app, started = catalog.app(name), time.monotonic()
            app.install(catalog.root)
            print(f"{name} {app.version}: ready in {time.monotonic() - started:.0f}s")
        return 0
    if args == ["serve"]:
        signal.signal(signal.SIGTERM, signal.default_int_handler)  # stop like Ctrl-C
        procs = []
        try:
            for name in catalog.app_names():
                app = catalog.app(name)
                app.reset(catalog.root)
                procs.append(app.serve(catalog.root))
                print(f"{name}: {app.base_url()}", flush=True)
            while all(p.poll() is None for p in procs):
                time.sleep(1)
            return 1  # one of them stopped on its own
        except KeyboardInterrupt:
            return 0
        finally:
            for proc in procs:
                proc.terminate()
    print("usage: python -m workers.bench.realapps_catalog install|serve", file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
