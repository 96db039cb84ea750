"""Roundup, the issue tracker (PyPI `roundup`), classic template on SQLite, port 8601.

Layout under `<root>/roundup/`: `venv/` (roundup only), `tracker/` (the instance the server
serves at `/tracker/`; its `db/` folder is the SQLite file plus the message files) and
`pristine-db/` (the seeded `db/` folder). Reset copies `pristine-db/` over `tracker/db/`:
Roundup opens the database per request, so the running server sees the copy at once.
Outgoing mail goes to `tracker/mail.log` ([mail] debug), never to a network.
"""

from __future__ import annotations

import os
import pwd
import shutil
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

NAME = "roundup"
PORT = 8601
VERSION = "2.6.0"
TRACKER = "tracker"  # the instance's name in the URL and its folder
SEED = Path(__file__).with_name("seed.py")
ADMIN_PASSWORD = "admin-rdu-2026"
SERVE_TIMEOUT_S = 30.0


class RoundupApp:
    name = NAME
    port = PORT
    version = VERSION

    def home(self, root: Path) -> Path:
        return root / NAME

    def tracker(self, root: Path) -> Path:
        return self.home(root) / TRACKER

    def db_path(self, root: Path) -> Path:
        """The SQLite file the server works on (checks read it)."""
        return self.tracker(root) / "db" / "db"

    def installed(self, root: Path) -> bool:
        return (self.home(root) / "pristine-db" / "db").is_file()

    def install(self, root: Path) -> None:
        home = self.home(root)
        venv = home / "venv"
        if not (venv / "bin" / "roundup-admin").exists():
            home.mkdir(parents=True, exist_ok=True)
            _run([sys.executable, "-m", "venv", str(venv)])
            _run([str(venv / "bin" / "pip"), "install", "-q", f"roundup=={VERSION}"])
        if self.installed(root):
            return
        tracker = self.tracker(root)
        shutil.rmtree(tracker, ignore_errors=True)
        admin = str(venv / "bin" / "roundup-admin")
        _run([admin, "-i", str(tracker), "install", "classic", "sqlite"])
        _configure(tracker / "config.ini", self.base_url())
        _run([admin, "-i", str(tracker), "initialise", ADMIN_PASSWORD])
        _run([str(venv / "bin" / "python"), str(SEED), str(tracker)])
        shutil.copytree(tracker / "db", home / "pristine-db")

    def reset(self, root: Path) -> None:
        pristine, live = self.home(root) / "pristine-db", self.tracker(root) / "db"
        staging = live.with_name("db.new")
        shutil.rmtree(staging, ignore_errors=True)
        shutil.copytree(pristine, staging)
        old = live.with_name("db.old")
        shutil.rmtree(old, ignore_errors=True)
        if live.exists():
            live.rename(old)
        staging.rename(live)
        shutil.rmtree(old, ignore_errors=True)

    def serve(self, root: Path) -> subprocess.Popen[bytes]:
        server = self.home(root) / "venv" / "bin" / "roundup-server"
        cmd = [str(server), "-n", "127.0.0.1", "-p", str(PORT)]
        if os.geteuid() == 0:  # it refuses root unless told which user to stay
            cmd += ["-u", pwd.getpwuid(0).pw_name]
        proc = subprocess.Popen(
            [*cmd, f"{TRACKER}={self.tracker(root)}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_http(f"{self.base_url()}/{TRACKER}/", proc)
        return proc

    def base_url(self) -> str:
        return f"http://127.0.0.1:{PORT}"

    def run_python(self, root: Path, code: str) -> str:
        """`code` runs with `db` open as admin on the tracker (and `instance`, `tracker`)."""
        prelude = (
            "from roundup import instance\n"
            f"tracker = instance.open({str(self.tracker(root))!r})\n"
            "db = tracker.open('admin')\n"
        )
        python = self.home(root) / "venv" / "bin" / "python"
        done = subprocess.run(
            [str(python), "-c", prelude + code], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise RuntimeError(f"roundup run_python failed: {done.stderr.strip()[-800:]}")
        return done.stdout

    def sql(self, root: Path, query: str, params: tuple[object, ...] = ()) -> list[tuple]:
        """Rows of a read-only query on the working database."""
        uri = f"file:{self.db_path(root)}?mode=ro"
        with sqlite3.connect(uri, uri=True) as conn:
            return list(conn.execute(query, params))


def _configure(config: Path, base_url: str) -> None:
    text = config.read_text()
    text = text.replace("#web = NO DEFAULT", f"web = {base_url}/{TRACKER}/")
    text = text.replace("#domain = NO DEFAULT", "domain = roundup.test")
    mail_log = config.parent / "mail.log"
    assert text.count("\ndebug = \n") == 1, "config.ini: [mail] debug not found"
    text = text.replace("\ndebug = \n", f"\ndebug = {mail_log}\n")
    text = text.replace("name = Roundup issue tracker", "name = Acme Support Tracker")
    config.write_text(text)


def _run(cmd: list[str]) -> None:
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def _wait_http(url: str, proc: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + SERVE_TIMEOUT_S
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"roundup-server exited with {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return
        except urllib.error.HTTPError:
            return  # it answers
        except OSError:
            time.sleep(0.2)
    proc.terminate()
    raise RuntimeError(f"roundup-server did not answer {url} in {SERVE_TIMEOUT_S}s")


APP = RoundupApp()
