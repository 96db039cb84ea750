"""pretix, the ticket shop and its organiser back office (PyPI `pretix`), on SQLite, port 8602.

Layout under `<root>/pretix/`: `venv/` (pretix only), `pretix.cfg` (instance URL
http://127.0.0.1:8602, SQLite, no Celery broker so tasks run in the request, no Redis),
`bench_settings.py` (pretix's settings with outgoing mail written to `mail/` as files, never to
a network), `data/` (pretix's data folder: the working `db.sqlite3` the server uses, media,
logs, cache) and `pristine.sqlite3` (the seeded database). Reset replaces the working file by
a copy of the pristine one (a new inode, atomically): pretix opens its SQLite connection per
request (CONN_MAX_AGE 0), caches nothing across requests (dummy cache) and keeps sessions in
the database, so the running server sees the seed at once (staff sessions end with it).
The seed is `seed.py` beside this file, run with pretix's interpreter.
"""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

NAME = "pretix"
PORT = 8602
VERSION = "2026.8.0"
SEED = Path(__file__).with_name("seed.py")
HELPERS = Path(__file__).with_name("orm_helpers.py")
SERVE_TIMEOUT_S = 60.0
WARM_PATHS = ("/harbour/jazz27/", "/control/login/")  # compile the SCSS once at install

CONFIG = """[pretix]
instance_name=Harbour Lights Tickets
url={url}
currency=EUR
datadir={data}
registration=off
password_reset=off
ecb_rates=off
trust_x_forwarded_for=off

[locale]
default=en
timezone=Europe/Berlin

[database]
backend=sqlite3
name={data}/db.sqlite3

[mail]
from=tickets@harbour.test

[django]
debug=off
secret=bench-realapps-pretix-not-secret
"""

SETTINGS = """from pretix.settings import *  # noqa: F401,F403

EMAIL_BACKEND = "django.core.mail.backends.filebased.EmailBackend"
EMAIL_FILE_PATH = {mail!r}
"""


class PretixApp:
    name = NAME
    port = PORT
    version = VERSION

    def home(self, root: Path) -> Path:
        return root.resolve() / NAME

    def db_path(self, root: Path) -> Path:
        """The SQLite file the server works on (checks read it)."""
        return self.home(root) / "data" / "db.sqlite3"

    def pristine(self, root: Path) -> Path:
        return self.home(root) / "pristine.sqlite3"

    def installed(self, root: Path) -> bool:
        return self.pristine(root).is_file()

    def install(self, root: Path) -> None:
        home = self.home(root)
        venv = home / "venv"
        if not (venv / "bin" / "pretix").exists() and not _has_pretix(venv):
            home.mkdir(parents=True, exist_ok=True)
            _run([sys.executable, "-m", "venv", str(venv)])
            _run([str(venv / "bin" / "pip"), "install", "-q", f"pretix=={VERSION}"])
        if self.installed(root):
            return
        self.configure(root)
        self.db_path(root).unlink(missing_ok=True)
        self.manage(root, "migrate", "--noinput")
        seed = HELPERS.read_text(encoding="utf-8") + SEED.read_text(encoding="utf-8")
        self.run_python(root, seed)
        shutil.copyfile(self.db_path(root), self.pristine(root))
        proc = self.serve(root)  # the first page of each kind compiles its SCSS (slow once)
        try:
            for path in WARM_PATHS:
                _wait_http(self.base_url() + path, proc, SERVE_TIMEOUT_S * 3)
        finally:
            proc.terminate()
            proc.wait(10)

    def configure(self, root: Path) -> None:
        home = self.home(root)
        for sub in ("data", "mail"):
            (home / sub).mkdir(parents=True, exist_ok=True)
        cfg = CONFIG.format(url=self.base_url(), data=home / "data")
        (home / "pretix.cfg").write_text(cfg, encoding="utf-8")
        settings = SETTINGS.format(mail=str(home / "mail"))
        (home / "bench_settings.py").write_text(settings, encoding="utf-8")

    def env(self, root: Path) -> dict[str, str]:
        home = self.home(root)
        return {
            **os.environ,
            "PRETIX_CONFIG_FILE": str(home / "pretix.cfg"),
            "DJANGO_SETTINGS_MODULE": "bench_settings",
            "PYTHONPATH": str(home),
        }

    def manage(self, root: Path, *args: str) -> None:
        python = self.home(root) / "venv" / "bin" / "python"
        subprocess.run(
            [str(python), "-m", "pretix", *args],
            check=True,
            env=self.env(root),
            cwd=self.home(root),
            stdout=subprocess.DEVNULL,
        )

    def reset(self, root: Path) -> None:
        live = self.db_path(root)
        staging = live.with_name("db.sqlite3.new")
        shutil.copyfile(self.pristine(root), staging)
        for suffix in ("-wal", "-shm", "-journal"):
            live.with_name(live.name + suffix).unlink(missing_ok=True)
        os.replace(staging, live)

    def serve(self, root: Path) -> subprocess.Popen[bytes]:
        """Django's server from pretix's venv, single process, threaded; `--insecure` serves
        the static files with DEBUG off (no other web server here)."""
        python = self.home(root) / "venv" / "bin" / "python"
        log = open(self.home(root) / "data" / "logs" / "server.log", "ab")  # noqa: SIM115
        proc = subprocess.Popen(
            [str(python), "-m", "pretix", "runserver", "--noreload", "--insecure",
             f"127.0.0.1:{PORT}"],
            env=self.env(root),
            cwd=self.home(root),
            stdout=log,
            stderr=subprocess.STDOUT,
        )  # fmt: skip
        log.close()
        _wait_http(self.base_url() + "/control/login/", proc, SERVE_TIMEOUT_S)
        return proc

    def base_url(self) -> str:
        return f"http://127.0.0.1:{PORT}"

    def run_python(self, root: Path, code: str) -> str:
        """`code` runs after `django.setup()` with pretix's settings and the names
        `scopes_disabled` (django_scopes) and `models` (pretix.base.models) bound."""
        prelude = (
            "import django\n"
            "django.setup()\n"
            "from django_scopes import scopes_disabled\n"
            "from pretix.base import models\n"
        )
        python = self.home(root) / "venv" / "bin" / "python"
        done = subprocess.run(
            [str(python), "-c", prelude + code],
            capture_output=True,
            text=True,
            check=False,
            env=self.env(root),
            cwd=self.home(root),
        )
        if done.returncode != 0:
            raise RuntimeError(f"pretix run_python failed: {done.stderr.strip()[-1500:]}")
        return done.stdout

    def run_orm(self, root: Path, code: str) -> str:
        """`code` runs like `run_python`'s, after `orm_helpers.py` (order making, lookups by
        name) and inside `scopes_disabled()`."""
        body = "".join(f"    {line}\n" for line in code.splitlines()) or "    pass\n"
        helpers = HELPERS.read_text(encoding="utf-8")
        return self.run_python(root, f"{helpers}\nwith scopes_disabled():\n{body}")

    def sql(self, root: Path, query: str, params: tuple[object, ...] = ()) -> list[tuple]:
        """Rows of a read-only query on the working database."""
        uri = f"file:{self.db_path(root)}?mode=ro"
        with sqlite3.connect(uri, uri=True) as conn:
            return list(conn.execute(query, params))


def _has_pretix(venv: Path) -> bool:
    python = venv / "bin" / "python"
    if not python.exists():
        return False
    probe = [str(python), "-c", "import importlib.metadata as m; print(m.version('pretix'))"]
    done = subprocess.run(probe, capture_output=True, text=True, check=False)
    return done.stdout.strip() == VERSION


def _run(cmd: list[str]) -> None:
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def _wait_http(url: str, proc: subprocess.Popen[bytes], timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"pretix runserver exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=timeout_s):
                return
        except urllib.error.HTTPError:
            return  # it answers
        except OSError:
            time.sleep(0.3)
    proc.terminate()
    raise RuntimeError(f"pretix did not answer {url} in {timeout_s}s")


APP = PretixApp()
