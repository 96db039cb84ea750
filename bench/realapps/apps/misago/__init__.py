"""Misago, the forum (PyPI `misago`), on Postgres, port 8603 (issue 33).

A public forum (categories, threads, search, profiles, registration) and a staff side: the
moderators' thread tools in the forum and the admin panel at `/admincp/` (users, ranks,
roles, bans, categories). Misago's own dev project (`devproject`, shipped in the wheel) with
`site/realapps_settings.py` over it: Postgres on 127.0.0.1, mail to the console, Celery tasks
run inline, no debug toolbar, a file cache under the app's folder.

Layout under `<root>/misago/`: `venv/` (Python 3.12, misago only), `site/` (settings and
URLs), `media/` and `media-seed/` (avatars), `cache/`. Databases: `realapps_misago_seed` is
the pristine template the seed built; reset drops `realapps_misago` (closing the server's
connections) and creates it again from the template, wipes the cache and restores media
(4.8-5.7 s on the shared 2-core machine); a running server needs no restart after a reset
(measured: a renamed category is back on the next page load), but does after `install`
built a new seed (it answered 500 until restarted).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

NAME = "misago"
PORT = 8603
VERSION = "0.39.6"
PYTHON = "/root/.pyenv/versions/3.12.1/bin/python"  # Misago 0.39 wants Python 3.12
DB = "realapps_misago"
SEED_DB = "realapps_misago_seed"
HERE = Path(__file__).resolve().parent
SERVE_TIMEOUT_S = 60.0


class MisagoApp:
    name = NAME
    port = PORT
    version = VERSION

    def home(self, root: Path) -> Path:
        return root.resolve() / NAME

    def installed(self, root: Path) -> bool:
        return (self.home(root) / "seeded").is_file() and _db_exists(SEED_DB)

    def install(self, root: Path) -> None:
        home = self.home(root)
        venv = home / "venv"
        if not (venv / "bin" / "django-admin").exists():
            home.mkdir(parents=True, exist_ok=True)
            python = os.environ.get("REALAPPS_PYTHON312", PYTHON)
            _run([python, "-m", "venv", str(venv)])
            _run([str(venv / "bin" / "pip"), "install", "-q", f"misago=={VERSION}"])
        site = home / "site"
        site.mkdir(exist_ok=True)
        for src in (HERE / "site").glob("*.py"):
            shutil.copy(src, site / src.name)
        if self.installed(root):
            return
        _psql(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
        _psql(f"DROP DATABASE IF EXISTS {SEED_DB}")
        _psql(f"CREATE DATABASE {DB}")
        shutil.rmtree(home / "media", ignore_errors=True)
        shutil.rmtree(home / "cache", ignore_errors=True)
        self._django(root, ["migrate", "-v0"])
        _run([str(venv / "bin" / "python"), str(HERE / "seed.py")], env=self._env(root))
        _psql(f"CREATE DATABASE {SEED_DB} TEMPLATE {DB}")
        shutil.rmtree(home / "media-seed", ignore_errors=True)
        (home / "media").mkdir(exist_ok=True)
        shutil.copytree(home / "media", home / "media-seed")
        (home / "seeded").write_text(VERSION)

    def reset(self, root: Path) -> None:
        home = self.home(root)
        _psql(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)")
        _psql(f"CREATE DATABASE {DB} TEMPLATE {SEED_DB}")
        shutil.rmtree(home / "cache", ignore_errors=True)
        shutil.rmtree(home / "media", ignore_errors=True)
        shutil.copytree(home / "media-seed", home / "media")

    def serve(self, root: Path) -> subprocess.Popen[bytes]:
        home = self.home(root)
        log = open(home / "server.log", "ab")  # noqa: SIM115 (the server's lifetime)
        proc = subprocess.Popen(
            [str(home / "venv" / "bin" / "django-admin"), "runserver", "--noreload",
             "--insecure", f"127.0.0.1:{PORT}"],
            env=self._env(root), stdout=log, stderr=subprocess.STDOUT, cwd=home,
        )  # fmt: skip
        log.close()
        _wait_http(f"{self.base_url()}/", proc)
        return proc

    def base_url(self) -> str:
        return f"http://127.0.0.1:{PORT}"

    def run_python(self, root: Path, code: str) -> str:
        """`code` runs after `django.setup()` with the forum's settings (its ORM)."""
        prelude = "import django\ndjango.setup()\n"
        python = self.home(root) / "venv" / "bin" / "python"
        done = subprocess.run(
            [str(python), "-c", prelude + code],
            capture_output=True, text=True, check=False, env=self._env(root),
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"misago run_python failed: {done.stderr.strip()[-800:]}")
        return done.stdout

    def sql(
        self, root: Path, query: str, params: tuple[object, ...] = (), db: str = "working"
    ) -> list[tuple]:
        """Rows of a query on the working database (or `db="seed"`: the pristine template),
        through psycopg of the app's venv, `%s` params."""
        name = SEED_DB if db == "seed" else DB
        code = (
            "import json, sys, psycopg\n"
            "q, p = json.loads(sys.stdin.read())\n"
            f"c = psycopg.connect(host='127.0.0.1', user={_pg_user()!r}, dbname={name!r})\n"
            "cur = c.cursor(); cur.execute(q, p or None)\n"
            "rows = cur.fetchall() if cur.description else []\n"
            "c.commit(); print(json.dumps(rows, default=str))\n"
        )
        python = self.home(root) / "venv" / "bin" / "python"
        done = subprocess.run(
            [str(python), "-c", code], input=json.dumps([query, list(params)]),
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"misago sql failed: {done.stderr.strip()[-800:]}")
        return [tuple(r) for r in json.loads(done.stdout)]

    def _env(self, root: Path) -> dict[str, str]:
        home = self.home(root)
        return {
            **os.environ,
            "PYTHONPATH": str(home / "site"),
            "DJANGO_SETTINGS_MODULE": "realapps_settings",
            "REALAPPS_MISAGO_DB": DB,
            "REALAPPS_PG_USER": _pg_user(),
        }

    def _django(self, root: Path, args: list[str]) -> None:
        admin = self.home(root) / "venv" / "bin" / "django-admin"
        _run([str(admin), *args], env=self._env(root))


def _pg_user() -> str:
    return os.environ.get("REALAPPS_PG_USER", "postgres")


def _psql(statement: str) -> str:
    done = subprocess.run(
        ["psql", "-h", "127.0.0.1", "-U", _pg_user(), "-d", "postgres", "-At",
         "-v", "ON_ERROR_STOP=1", "-c", statement],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"psql {statement!r}: {done.stderr.strip()}")
    return done.stdout


def _db_exists(name: str) -> bool:
    try:
        out = _psql(f"SELECT 1 FROM pg_database WHERE datname = '{name}'")
    except (RuntimeError, OSError):
        return False
    return out.strip() == "1"


def _run(cmd: list[str], env: dict[str, str] | None = None) -> None:
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"{cmd[0]} failed: {(done.stderr or done.stdout).strip()[-800:]}")


def _wait_http(url: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + SERVE_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"misago server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=5) as resp:
                if resp.status < 500:
                    return
        except urllib.error.HTTPError as exc:
            if exc.code < 500:
                return
        except OSError:
            pass
        time.sleep(0.3)
    proc.terminate()
    raise RuntimeError(f"misago did not answer on {url} within {SERVE_TIMEOUT_S:.0f}s")


APP = MisagoApp()
